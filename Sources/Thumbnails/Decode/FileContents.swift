#if canImport(Glibc)
  import Glibc
#endif

/// Reads a whole file into memory with plain system calls.
enum FileContents {
  /// The file's bytes, or `nil` when it cannot be opened or read.
  static func read(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0, info.st_size >= 0 else { return nil }
    let size = Int(info.st_size)
    var bytes = [UInt8](repeating: 0, count: size)
    var done = 0
    let complete = bytes.withUnsafeMutableBytes { buffer -> Bool in
      while done < size {
        let got = Glibc.read(descriptor, buffer.baseAddress! + done, size - done)
        if got < 0 && errno == EINTR { continue }
        if got <= 0 { return false }
        done += got
      }
      return true
    }
    return complete ? bytes : nil
  }
}
