/// How far a download has come. Resumed bytes count as received.
public struct DownloadProgress: Sendable, Equatable, CustomStringConvertible {
  /// Bytes of the file received so far, including any resumed from an earlier attempt.
  public var bytesReceived: Int64
  /// The file's full size, when the server told it.
  public var bytesExpected: Int64?

  /// Creates a progress value.
  /// - Parameters:
  ///   - bytesReceived: Bytes received so far.
  ///   - bytesExpected: The full size, if known.
  public init(bytesReceived: Int64, bytesExpected: Int64?) {
    self.bytesReceived = bytesReceived
    self.bytesExpected = bytesExpected
  }

  /// The share received, from 0 to 1, when the full size is known.
  public var fraction: Double? {
    guard let bytesExpected, bytesExpected > 0 else { return nil }
    return min(1, Double(bytesReceived) / Double(bytesExpected))
  }

  /// `1200/4800 bytes (25%)`, or `1200 bytes` when the size is unknown.
  public var description: String {
    guard let bytesExpected, let fraction else { return "\(bytesReceived) bytes" }
    return "\(bytesReceived)/\(bytesExpected) bytes (\(Int(fraction * 100))%)"
  }
}

/// Receives progress; called from a background thread, possibly often (about every 16 KB).
public typealias ProgressHandler = @Sendable (DownloadProgress) -> Void
