import FoundationEssentials
import SystemFiles

/// Streams a URL into a `.part` file with progress, retries, resume and a size limit.
///
/// ```swift
/// let downloader = Downloader()
/// let size = try await downloader.download(from: url, to: partFile) { print($0) }
/// ```
///
/// - An existing `.part` file is resumed with `Range`; the answer is used only when it is a 206
///   that continues exactly where the file ends, otherwise the download starts again cleanly.
/// - An attempt ends when the connection is silent for the idle timeout, slower than the speed
///   floor, or past its deadline (``Options``); an error answer's body is read to 4 KiB, the start
///   of the message, and no further.
/// - Lost connections, timeouts, truncated bodies, HTTP 5xx and 429 are retried per the
///   ``RetryPolicy`` (honouring `Retry-After`), resuming from the bytes already on disk.
/// - Cancelling the Swift task stops the transfer at once and throws `CancellationError`; the
///   `.part` file stays for a later resume.
///
/// Requests go through libcurl (loaded on the first one), as every request of ParseFetch does; see
/// <doc:HTTPStack>.
public final class Downloader: Sendable {
  /// Limits and retry behaviour.
  public struct Options: Sendable {
    /// The largest body accepted, counted on decoded bytes; 256 MiB by default.
    public var maximumBytes: Int64 = 256 << 20
    /// How long the connection may stay silent before the attempt fails, in seconds; also the
    /// window over which ``minimumSpeed`` is averaged.
    public var idleTimeout: TimeInterval = 30
    /// The speed floor in bytes a second (1024 by default; 0 for none): an attempt whose answer,
    /// from its first byte, brings less than `minimumSpeed × idleTimeout` bytes in a window of
    /// ``idleTimeout`` seconds fails with ``ConnectionError/Kind/tooSlow``, so a server that sends a
    /// byte every few seconds cannot hold it for ever.
    public var minimumSpeed: Int = 1024
    /// The longest one attempt (its redirects included) may take, in seconds (600 by default; 0 for
    /// no limit); past it the attempt fails with ``ConnectionError/Kind/deadlineExceeded``. Both are
    /// transient: a retry starts a fresh attempt, resuming from the `.part` file.
    public var maximumDuration: TimeInterval = 600
    /// When failed attempts are tried again.
    public var retryPolicy: RetryPolicy = .standard

    /// Creates options with the defaults, changed by the arguments given.
    /// - Parameters:
    ///   - maximumBytes: The largest body accepted.
    ///   - idleTimeout: The idle timeout in seconds.
    ///   - minimumSpeed: The speed floor in bytes a second, 0 for none.
    ///   - maximumDuration: The longest an attempt may take, in seconds, 0 for no limit.
    ///   - retryPolicy: The retry behaviour.
    public init(
      maximumBytes: Int64 = 256 << 20, idleTimeout: TimeInterval = 30, minimumSpeed: Int = 1024,
      maximumDuration: TimeInterval = 600, retryPolicy: RetryPolicy = .standard
    ) {
      self.maximumBytes = maximumBytes
      self.idleTimeout = idleTimeout
      self.minimumSpeed = minimumSpeed
      self.maximumDuration = maximumDuration
      self.retryPolicy = retryPolicy
    }
  }

  /// The limits in force.
  public let options: Options

  /// Creates a downloader.
  /// - Parameter options: Limits and retry behaviour.
  public init(options: Options = Options()) {
    self.options = options
  }

  /// Downloads `url` into `partFile`, resuming from the bytes it already holds.
  /// - Parameters:
  ///   - url: The file's URL; redirects are followed.
  ///   - partFile: The path of the file to write; created when missing.
  ///   - headers: Extra request headers, such as the Parse application id and session token.
  ///   - headersOrigin: The only origin (scheme, host and port) that receives `headers`:
  ///     `url`'s own when nil. A request to any other origin, first or after a redirect,
  ///     carries none of them.
  ///   - consumer: Makes, for each attempt, what sees the body as it is written (see
  ///     ``DataLoading/download(from:to:headers:headersOrigin:consumer:progress:)``).
  ///   - progress: Called as bytes arrive.
  /// - Returns: The size of the complete file.
  /// - Throws: The consumer's error when it rejects the file; ``DownloadError`` once retries are used up or the failure is final (the `.part`
  ///   file is kept only when a later resume can use it); `CancellationError` when cancelled.
  @discardableResult
  public func download(
    from url: URL, to partFile: String, headers: [String: String] = [:], headersOrigin: URL? = nil,
    consumer: DownloadConsumerFactory? = nil, progress: ProgressHandler? = nil
  ) async throws -> Int64 {
    let scoped = ScopedHeaders(fields: headers, origin: Origin(headersOrigin ?? url))
    var retry = 0
    while true {
      try Task.checkCancellation()
      let offset = Self.size(of: partFile)
      let attempt = DownloadAttempt(
        .init(
          url: url, headers: scoped, partFile: partFile, offset: offset,
          maximumBytes: options.maximumBytes, idleTimeout: options.idleTimeout,
          minimumSpeed: options.minimumSpeed, maximumDuration: options.maximumDuration,
          progress: progress, consumer: consumer))
      switch await attempt.run() {
      case .complete(let size):
        return size
      case .cancelled:
        throw CancellationError()
      case .rejected(let error):
        throw error
      case .restart:
        _ = try? FileSystem.remove(partFile)
      case .failed(let error):
        retry += 1
        guard error.isTransient,
          let wait = options.retryPolicy.delay(beforeRetry: retry, retryAfter: error.retryAfter)
        else {
          if !error.keepsPartialData { _ = try? FileSystem.remove(partFile) }
          throw error
        }
        try await Task.sleep(for: wait)
      }
    }
  }

  /// The size of a file, 0 when it does not exist.
  static func size(of file: String) -> Int64 {
    Int64(FileStatus.of(file)?.size ?? 0)
  }
}
