#if canImport(Glibc)
  import Glibc
#endif

/// Where the command line writes: standard output for results, standard error for messages.
/// Writes go straight to the file descriptors, unbuffered, so output and progress never interleave
/// half-lines.
public enum Console {
  /// Writes a line to standard output.
  public static func out(_ line: String) { writeText(line + "\n", to: STDOUT_FILENO) }

  /// Writes `imgfetch: message` to standard error.
  public static func error(_ message: String) { writeText("imgfetch: \(message)\n", to: STDERR_FILENO) }

  /// Writes text to standard error as it is (for progress drawing).
  public static func errorRaw(_ text: String) { writeText(text, to: STDERR_FILENO) }

  /// Writes raw bytes to standard output.
  /// - Returns: `false` when the write failed (for example a closed pipe).
  @discardableResult
  public static func outBytes(_ bytes: UnsafeRawBufferPointer) -> Bool { writeAll(bytes, to: STDOUT_FILENO) }

  private static func writeText(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { _ = writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
  }

  private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var offset = 0
    while offset < bytes.count {
      let written = write(descriptor, base + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return false
      }
      offset += written
    }
    return true
  }
}
