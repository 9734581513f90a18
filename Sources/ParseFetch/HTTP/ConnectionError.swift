/// Why an HTTP exchange brought no usable answer: the connection, not the server's answer, failed.
///
/// ```swift
/// if case .connection(_, let error) = parseError, error.kind == .cannotConnect { print("is the server up?") }
/// ```
///
/// ``message`` is libcurl's own detailed text (`Failed to connect to 127.0.0.1 port 9 after 0 ms:
/// Couldn't connect to server`), never a credential or a URL's query.
public struct ConnectionError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The kinds of failure, sorted for retries and messages.
  public enum Kind: String, Sendable, Equatable {
    /// The host name (or the proxy's) did not resolve.
    case cannotFindHost
    /// No connection to the host or proxy could be made.
    case cannotConnect
    /// The connection failed or closed before the answer was complete.
    case connectionLost
    /// Nothing arrived for longer than the idle timeout.
    case timedOut
    /// The answer came slower than the speed floor (bytes a second, averaged over a window of the
    /// idle timeout's length).
    case tooSlow
    /// The exchange (its redirects included) took longer than its deadline.
    case deadlineExceeded
    /// TLS failed: the handshake, the certificate, or a server that does not speak TLS.
    case secureConnectionFailed
    /// The server's answer could not be read (bad framing, content encoding or HTTP/2 error).
    case badResponse
    /// More redirects than an exchange follows (20): a redirect loop.
    case tooManyRedirects
    /// The request cannot be sent: a URL that is not http(s), or a header value with a line break.
    case invalidRequest
    /// libcurl cannot be loaded or initialised.
    case unavailable
    /// Anything else libcurl reports.
    case other
  }

  /// What failed.
  public var kind: Kind
  /// libcurl's text, or ours, for the message.
  public var message: String

  /// Describes a failure.
  /// - Parameters:
  ///   - kind: What failed.
  ///   - message: The detail for the message.
  public init(kind: Kind, message: String) {
    self.kind = kind
    self.message = message
  }

  /// The detail, such as `Couldn't connect to server`.
  public var description: String { message }

  /// Whether trying again may help: everything but TLS failures, unusable requests, redirect loops
  /// and a missing libcurl.
  public var isTransient: Bool {
    switch kind {
    case .secureConnectionFailed, .tooManyRedirects, .invalidRequest, .unavailable: false
    default: true
    }
  }
}
