import FoundationEssentials

/// When and how long to wait before trying a failed request again: exponential backoff with
/// jitter, or the server's `Retry-After` when it sent one.
///
/// Only transient failures are retried (lost connections, timeouts, HTTP 5xx and 429); other
/// 4xx answers fail at once.
public struct RetryPolicy: Sendable, Equatable {
  /// How many tries in all, the first included; 1 means no retry.
  public var maxAttempts: Int
  /// The wait before the first retry; each further retry doubles it.
  public var initialDelay: Duration
  /// The longest backoff wait.
  public var maxDelay: Duration
  /// The longest `Retry-After` honoured; a server asking for more ends the retries.
  public var maxRetryAfter: Duration

  /// Creates a policy.
  /// - Parameters:
  ///   - maxAttempts: Tries in all, at least 1.
  ///   - initialDelay: The first backoff wait.
  ///   - maxDelay: The longest backoff wait.
  ///   - maxRetryAfter: The longest `Retry-After` honoured.
  public init(
    maxAttempts: Int = 4, initialDelay: Duration = .milliseconds(500),
    maxDelay: Duration = .seconds(30), maxRetryAfter: Duration = .seconds(120)
  ) {
    self.maxAttempts = max(1, maxAttempts)
    self.initialDelay = initialDelay
    self.maxDelay = maxDelay
    self.maxRetryAfter = maxRetryAfter
  }

  /// Four tries, starting at half a second.
  public static let standard = RetryPolicy()
  /// A single try.
  public static let none = RetryPolicy(maxAttempts: 1)

  /// The wait before retry number `retry`, or nil when no retry should be made.
  /// - Parameters:
  ///   - retry: 1 for the first retry, 2 for the second, and so on.
  ///   - retryAfter: The server's `Retry-After`, if it sent one.
  /// - Returns: The wait, or nil once the tries are used up or the server asks for too long.
  public func delay(beforeRetry retry: Int, retryAfter: Duration? = nil) -> Duration? {
    guard retry < maxAttempts else { return nil }
    if let retryAfter {
      guard retryAfter <= maxRetryAfter else { return nil }
      return retryAfter + initialDelay * Double.random(in: 0...0.1)
    }
    let backoff = min(maxDelay, initialDelay * Double(1 << min(retry - 1, 20)))
    return backoff * Double.random(in: 0.5...1)
  }

  /// Reads a `Retry-After` header: delay seconds or an HTTP date.
  /// - Parameter value: The header's value.
  /// - Returns: The wait from now, or nil when absent or unreadable.
  static func retryAfter(_ value: String?) -> Duration? {
    guard let value = value?.trimmingASCIIWhitespace(), !value.isEmpty else { return nil }
    if let seconds = Int(value) { return .seconds(max(0, seconds)) }
    // An HTTP date is printable ASCII (RFC 9110); anything else is unreadable.
    guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }), let date = HTTPDate.secondsSince1970(value) else {
      return nil
    }
    let now = Date.now.timeIntervalSince1970
    return .milliseconds(max(0, Int((Double(date) - now) * 1000)))
  }
}
