#if canImport(Glibc)
  import Glibc
#endif

/// Writing to an open descriptor, retrying what a signal interrupted: the one loop behind every
/// write of the package (files, standard output and error).
enum Descriptors {
  /// Writes every byte to `descriptor`.
  /// - Returns: nil, or the failure of the write that failed (for `path`).
  static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) -> SystemError? {
    guard let base = bytes.baseAddress else { return nil }
    var offset = 0
    while offset < bytes.count {
      let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return .last("write", path)
      }
      offset += written
    }
    return nil
  }
}
