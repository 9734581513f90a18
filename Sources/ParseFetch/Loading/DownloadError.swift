/// Why a download failed. URLs are shown without query or user info (they may be signed).
public enum DownloadError: Error, Sendable, CustomStringConvertible {
  /// The server answered with an error status; `excerpt` is the start of its body.
  case httpStatus(url: String, status: Int, excerpt: String, retryAfter: Duration?)
  /// The body ended before the announced length.
  case truncated(url: String, received: Int64, expected: Int64)
  /// The body is larger than the allowed maximum (announced or counted while streaming).
  case tooLarge(url: String, limit: Int64)
  /// No byte arrived for longer than the idle timeout.
  case idleTimeout(url: String, seconds: Double)
  /// The connection failed, was lost, redirected in a loop, came slower than the speed floor or
  /// passed its deadline (``ConnectionError`` says which).
  case connection(url: String, ConnectionError)
  /// The server answered in a way a download cannot use (such as a 206 that was not asked for).
  case unusableResponse(url: String, reason: String)
  /// The `.part` file could not be written.
  case file(path: String, reason: String)

  /// One sentence that says what failed and what to do.
  public var description: String {
    switch self {
    case .httpStatus(let url, let status, let excerpt, _):
      "\(url) answered HTTP \(status)" + (excerpt.isEmpty ? "" : " (\(excerpt))")
        + (status == 404 ? "; the file is gone from the server" : "; check access to the file")
    case .truncated(let url, let received, let expected):
      "\(url) sent \(received) of \(expected) bytes before the connection ended; try again later"
    case .tooLarge(let url, let limit):
      "\(url) is larger than the \(limit)-byte download limit; raise the limit if it is expected"
    case .idleTimeout(let url, let seconds):
      "\(url) sent nothing for \(seconds) s; try again later or raise the idle timeout"
    case .connection(let url, let error):
      "could not download \(url) (\(error))"
    case .unusableResponse(let url, let reason):
      "\(url) gave an unusable answer: \(reason)"
    case .file(let path, let reason):
      "could not write \(path): \(reason); check free space and permissions"
    }
  }

  /// Whether trying again may help: lost connections, timeouts, truncation, HTTP 5xx and 429.
  public var isTransient: Bool {
    switch self {
    case .httpStatus(_, let status, _, _): status == 429 || status >= 500
    case .truncated, .idleTimeout: true
    case .connection(_, let error): error.isTransient
    case .tooLarge, .unusableResponse, .file: false
    }
  }

  /// Whether the `.part` data is worth keeping for a later resume.
  var keepsPartialData: Bool { isTransient }

  var retryAfter: Duration? {
    if case .httpStatus(_, _, _, let wait) = self { wait } else { nil }
  }

}
