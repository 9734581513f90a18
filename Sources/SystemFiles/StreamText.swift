#if canImport(Glibc)
  import Glibc
#endif

/// Reads a whole stream: a regular file, a pipe (`<(find …)`), a FIFO, or standard input, to its end.
public enum StreamText {
  /// Reads `path` to its end, or standard input when `path` is `-`.
  /// - Parameters:
  ///   - path: The file, or `-` for standard input.
  ///   - limit: The most bytes accepted; a longer stream throws `EFBIG` (nothing past the limit is
  ///     kept).
  /// - Returns: The bytes.
  /// - Throws: ``SystemError``: `open` or `read` failed, the path is a folder, or the stream is
  ///   longer than `limit`.
  public static func read(_ path: String, limit: Int) throws(SystemError) -> [UInt8] {
    let standardInput = path == "-"
    let descriptor = standardInput ? 0 : open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw .last("open", path) }
    defer { if !standardInput { close(descriptor) } }
    let status = try FileStatus(descriptor: descriptor, path: path)
    if status.kind == .directory { throw SystemError(operation: "read", path: path, reason: .notRegularFile(.directory)) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .last("read", path)
      }
      if count == 0 { return bytes }
      guard bytes.count + count <= limit else { throw SystemError(operation: "read", path: path, reason: .errno(EFBIG)) }
      bytes.append(contentsOf: chunk[..<count])
    }
  }
}
