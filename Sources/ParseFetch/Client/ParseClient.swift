import Foundation
import ImgfetchVersion
import ParseEssentials

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Reads objects and their file columns from a Parse Server's REST API.
///
/// ```swift
/// let client = ParseClient(configuration: try ParseConfiguration())
/// let file = try await client.file(of: ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm"),
///                                  column: "MainImage")
/// ```
///
/// Transient failures (lost connections, HTTP 5xx, 429 with `Retry-After`) are retried by the
/// ``RetryPolicy``; everything else fails at once with a ``ParseError``.
public final class ParseClient: Sendable {
  /// The server and credentials used for every request.
  public let configuration: ParseConfiguration
  /// When failed requests are tried again.
  public let retryPolicy: RetryPolicy
  let session: URLSession
  /// The REST headers, which go only to the server's own origin.
  let credentials: ScopedHeaders

  /// Creates a client with its own URL session (no shared URL cache).
  /// - Parameters:
  ///   - configuration: The server and credentials.
  ///   - retryPolicy: When to retry transient failures.
  ///   - timeout: The idle timeout for one request, in seconds.
  public init(
    configuration: ParseConfiguration, retryPolicy: RetryPolicy = .standard,
    timeout: TimeInterval = 30
  ) {
    self.configuration = configuration
    self.retryPolicy = retryPolicy
    let sessionConfiguration = URLSessionConfiguration.ephemeral
    sessionConfiguration.httpAdditionalHeaders = ["User-Agent": ImgfetchVersion.userAgent]
    sessionConfiguration.timeoutIntervalForRequest = timeout
    sessionConfiguration.urlCache = nil
    sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
    credentials = ScopedHeaders(
      fields: configuration.restHeaders, origin: Origin(configuration.serverURL))
    session = URLSession(
      configuration: sessionConfiguration,
      delegate: RESTRedirectPolicy(credentials: credentials), delegateQueue: nil)
  }

  deinit { session.finishTasksAndInvalidate() }

  /// Fetches one object's file column, asking the server for that column only.
  /// - Parameters:
  ///   - object: The class and object id.
  ///   - column: The file column's name, such as `MainImage`.
  /// - Returns: The file's name and download URL.
  /// - Throws: ``ParseError`` (not found, not a file, refused, unreachable), or
  ///   `CancellationError` when the task is cancelled.
  public func file(of object: ParseObjectReference, column: String) async throws -> ParseFile {
    let request = ParseREST.fileColumnRequest(className: object.className, objectID: object.objectID, column: column)
    let url = configuration.endpoint(request.segments, query: request.query)
    let body = try await get(url, object: object)
    return try ParseFile(column: body[column], of: object, column: column)
  }

  /// Sends a GET with the REST headers, retrying transient failures.
  /// - Returns: The decoded JSON body of a 2xx answer.
  func get(_ url: URL, object: ParseObjectReference? = nil) async throws -> JSONValue {
    let request = credentials.applied(to: URLRequest(url: url))
    var retry = 0
    while true {
      let error: ParseError
      switch try await attempt(request, object: object) {
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

  /// Sends a request once.
  /// - Returns: The JSON body of a 2xx answer, or the error the answer means.
  /// - Throws: `CancellationError` only.
  private func attempt(_ request: URLRequest, object: ParseObjectReference?) async throws
    -> Result<JSONValue, ParseError>
  {
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.data(for: request)
    } catch let error as URLError {
      if error.code == .cancelled || Task.isCancelled { throw CancellationError() }
      return .failure(.connection(url: request.url?.redactedForLog ?? "?", error))
    }
    guard let http = response as? HTTPURLResponse else {
      return .failure(.unexpectedResponse(status: 0, contentType: nil, excerpt: "not HTTP"))
    }
    if (200..<300).contains(http.statusCode), let body = JSONValue.parse(data) {
      return .success(body)
    }
    if (300..<400).contains(http.statusCode), let location = http.value(forHTTPHeaderField: "Location"),
      let target = URL(string: location, relativeTo: request.url),
      Origin(target) != credentials.origin
    {
      return .failure(
        .redirectedElsewhere(
          server: configuration.serverURL.redactedForLog,
          location: Origin(target)?.description ?? target.redactedForLog))
    }
    return .failure(.from(response: http, body: data, object: object))
  }
}
