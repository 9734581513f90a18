import FoundationEssentials

/// Reads objects and their file columns from a Parse Server's REST API.
///
/// ```swift
/// let client = ParseClient(configuration: try ParseConfiguration())
/// let file = try await client.file(of: ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm"),
///                                  column: "MainImage")
/// ```
///
/// Transient failures (lost connections, HTTP 5xx, 429 with `Retry-After`) are retried by the
/// ``RetryPolicy``; everything else fails at once with a ``ParseError``. Requests carry the REST
/// headers only to the server's own origin, and follow a redirect only within it; they go through
/// libcurl, loaded on the first one (<doc:HTTPStack>).
public final class ParseClient: Sendable {
  /// The server and credentials used for every request.
  public let configuration: ParseConfiguration
  /// When failed requests are tried again.
  public let retryPolicy: RetryPolicy
  /// How long a request may stay silent.
  let timeout: Duration
  /// The speed floor in bytes a second (0: none), averaged over windows of ``timeout``.
  let minimumSpeed: Int
  /// How long one request (its redirects included) may take, or nil.
  let deadline: Duration?
  /// The REST headers, which go only to the server's own origin.
  let credentials: ScopedHeaders

  /// The most bytes of one answer (a page of a walk is far smaller).
  static let maximumBodyBytes = 64 << 20

  /// Creates a client.
  /// - Parameters:
  ///   - configuration: The server and credentials.
  ///   - retryPolicy: When to retry transient failures.
  ///   - timeout: The idle timeout for one request, in seconds; also the window of the speed floor.
  ///   - minimumSpeed: The speed floor in bytes a second, 0 for none: a request whose answer brings
  ///     less than `minimumSpeed × timeout` bytes in a window of `timeout` seconds fails with
  ///     ``ConnectionError/Kind/tooSlow``.
  ///   - maximumDuration: The longest one request may take, in seconds, 0 for no limit; past it, it
  ///     fails with ``ConnectionError/Kind/deadlineExceeded``. Both failures are retried.
  public init(
    configuration: ParseConfiguration, retryPolicy: RetryPolicy = .standard,
    timeout: TimeInterval = 30, minimumSpeed: Int = 1024, maximumDuration: TimeInterval = 600
  ) {
    self.configuration = configuration
    self.retryPolicy = retryPolicy
    self.timeout = .milliseconds(Int((timeout * 1000).rounded(.up)))
    self.minimumSpeed = max(0, minimumSpeed)
    deadline = maximumDuration > 0 ? .milliseconds(Int((maximumDuration * 1000).rounded(.up))) : nil
    credentials = ScopedHeaders(fields: configuration.restHeaders, origin: Origin(configuration.serverURL))
  }

  /// Fetches one object's file column, asking the server for that column only.
  /// - Parameters:
  ///   - object: The class and object id.
  ///   - column: The file column's name, such as `MainImage`.
  /// - Returns: The file's name and download URL.
  /// - Throws: ``ParseError`` (not found, not a file, refused, unreachable), or
  ///   `CancellationError` when the task is cancelled.
  public func file(of object: ParseObjectReference, column: String) async throws -> ParseFile {
    let url = configuration.endpoint(["classes", object.className, object.objectID], query: [("keys", column)])
    let body = try await get(url, object: object)
    return try ParseFile(column: body[column], of: object, column: column)
  }

  /// Sends a GET with the REST headers, retrying transient failures.
  /// - Returns: The decoded JSON body of a 2xx answer.
  func get(_ url: URL, object: ParseObjectReference? = nil) async throws -> JSONValue {
    var retry = 0
    while true {
      let error: ParseError
      switch try await attempt(url, object: object) {
      case .success(let body): return body
      case .failure(let failure): error = failure
      }
      retry += 1
      guard error.isTransient,
        let wait = retryPolicy.delay(beforeRetry: retry, retryAfter: error.retryAfter)
      else { throw error }
      try await Task.sleep(for: wait)
    }
  }

  /// Sends a request once; a redirect is followed only within the server's origin, with the
  /// credentials, and one that leaves it is the answer.
  /// - Returns: The JSON body of a 2xx answer, or the error the answer means.
  /// - Throws: `CancellationError` only.
  private func attempt(_ url: URL, object: ParseObjectReference?) async throws -> Result<JSONValue, ParseError> {
    let credentials = credentials
    let request = HTTPRequest(
      url: url, fields: credentials.fields(for: url),
      redirects: RedirectRule { credentials.allows($0) ? credentials.fields(for: $0) : nil }, idleTimeout: timeout,
      minimumSpeed: minimumSpeed, deadline: deadline)
    let body = ResponseBody(limit: Self.maximumBodyBytes)
    let head: HTTPResponseHead
    switch await HTTPExchange(request, receiver: body).run() {
    case .complete(let complete): head = complete
    case .cancelled: throw CancellationError()
    case .failed(let error, _): return .failure(.connection(url: url.redactedForLog, error))
    case .stopped where body.contents.errorCut:  // an error answer, cut once its message was kept
      head = body.contents.head ?? HTTPResponseHead(status: 0, fields: [])
    case .stopped:
      let received = body.contents.head
      return .failure(
        .unexpectedResponse(
          status: received?.status ?? 0, contentType: received?.value("Content-Type"),
          excerpt: "an answer over \(Self.maximumBodyBytes >> 20) MiB"))
    }
    if Task.isCancelled { throw CancellationError() }
    let bytes = body.contents.bytes
    if (200..<300).contains(head.status), let json = JSONValue.parse(bytes) { return .success(json) }
    if (300..<400).contains(head.status), let target = head.redirectTarget, !credentials.allows(target) {
      return .failure(
        .redirectedElsewhere(
          server: configuration.serverURL.redactedForLog,
          location: Origin(target)?.description ?? target.redactedForLog))
    }
    return .failure(.from(response: head, body: bytes, object: object))
  }
}
