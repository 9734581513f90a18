import SystemFiles

/// Reads a whole file into memory with plain system calls.
enum FileContents {
  /// The file's bytes, or `nil` when it cannot be opened or read, or is not a regular file (a FIFO
  /// at the path is refused at once instead of blocking).
  static func read(_ path: String) -> [UInt8]? {
    try? ReadableFile(path: path).readAll()
  }
}
