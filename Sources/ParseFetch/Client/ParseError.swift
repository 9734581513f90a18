/// Why a Parse REST request failed. Server errors are told apart by their Parse `code` and keep
/// the server's own text; no case ever holds a key or a token.
public enum ParseError: Error, Sendable, CustomStringConvertible {
  /// Code 101: the object does not exist, or its ACL hides it from these credentials.
  case objectNotFound(ParseObjectReference, message: String)
  /// The object has no value in the column at all (a misspelt column name, or an object that was
  /// saved without it).
  case missingColumn(ParseObjectReference, column: String)
  /// The column is `null` or holds something else than a File.
  case notAFile(ParseObjectReference, column: String, found: String)
  /// A walk over a class could not go on without looping or losing objects: an answer without
  /// objectIds, a page that repeats objects already seen (a proxy that drops the `$gt` paging
  /// constraint), or ids outside the requested slice. `reason` says which.
  case pagingFailed(className: String, reason: String)
  /// Code 209: the session token is invalid or expired.
  case invalidSessionToken(message: String)
  /// Code 119: the credentials may not do this (class-level permissions).
  case forbidden(message: String)
  /// Code 102: the server rejected the query.
  case invalidQuery(message: String)
  /// HTTP 429 or code 100: too many requests; `retryAfter` is the server's wait, when given.
  case rateLimited(retryAfter: Duration?, message: String)
  /// HTTP 403 `{"error":"unauthorized"}`: unknown application id or wrong key.
  case unauthorized
  /// Any other Parse error body, with its HTTP status, code and text.
  case server(status: Int, code: Int, message: String)
  /// The answer was not Parse JSON (such as a proxy's HTML 502 page).
  case unexpectedResponse(status: Int, contentType: String?, excerpt: String)
  /// No HTTP answer: the connection failed or timed out (``ConnectionError`` says how).
  case connection(url: String, ConnectionError)
  /// The server answered with a redirect to another origin (`location`: its scheme, host and
  /// port), which is not followed because REST requests carry the Parse keys.
  case redirectedElsewhere(server: String, location: String)

  /// One sentence that says what failed and what to do.
  public var description: String {
    switch self {
    case .objectNotFound(let object, let message):
      "\(object): object not found (\(message)); check the id, or the ACL and session token"
    case .missingColumn(let object, let column):
      "\(object): column \(column) is missing (the object has no such field; check the column name)"
    case .notAFile(let object, let column, let found):
      "\(object): column \(column) is not a file (found \(found))"
    case .pagingFailed(let className, let reason):
      "class \(className): \(reason)"
    case .invalidSessionToken(let message):
      "the session token was refused (code 209: \(message)); log in again and use the new token"
    case .forbidden(let message):
      "the server forbids this (code 119: \(message)); use credentials that may read the class"
    case .invalidQuery(let message):
      "the server rejected the query (code 102: \(message)); check the class, column and where JSON"
    case .rateLimited(let retryAfter, let message):
      "the server is rate limiting (\(message))"
        + (retryAfter.map { "; retry after \($0.components.seconds) s" } ?? "; retry later")
    case .unauthorized:
      "the server answered 403 unauthorized; check the application id and the REST or master key"
    case .server(let status, let code, let message):
      "the server failed with HTTP \(status), code \(code): \(message)"
    case .unexpectedResponse(let status, let contentType, let excerpt):
      "the server answered HTTP \(status) with \(contentType ?? "an untyped body"), not Parse JSON "
        + "(\"\(excerpt)\"); check the server URL and any proxy in front of it"
    case .connection(let url, let error):
      "could not reach \(url) (\(error)); check that the server is up"
    case .redirectedElsewhere(let server, let location):
      "the Parse server at \(server) redirected to another origin (\(location)); Parse keys are sent "
        + "only to their own origin: set the server URL to where the server really is"
    }
  }

  /// Whether the same request may succeed later: rate limiting, server failures, lost connections.
  var isTransient: Bool {
    switch self {
    case .rateLimited: true
    case .connection(_, let error): error.isTransient
    case .server(let status, _, _), .unexpectedResponse(let status, _, _): status >= 500
    default: false
    }
  }

  /// The server's requested wait before a retry.
  var retryAfter: Duration? {
    if case .rateLimited(let wait, _) = self { wait } else { nil }
  }
}
