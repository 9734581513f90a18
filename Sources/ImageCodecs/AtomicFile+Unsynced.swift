#if canImport(Glibc)
  import Glibc
#endif

// Owned by the thumbnails work (see Sources/Thumbnails); the lead may fold it into AtomicFile.swift.
extension AtomicFile {
  /// Writes `bytes` to `path` atomically (temporary file in the same directory, then rename) but
  /// without `fsync`: readers still see the old file or the complete new one, but after a power
  /// failure the new file may be missing or incomplete. Meant for derived files that can be
  /// rebuilt (thumbnails), where a flush per file would cost more than the file itself.
  /// - Parameters:
  ///   - bytes: The complete contents.
  ///   - path: The destination; its directory must exist.
  ///   - permissions: The file mode, 0644 by default.
  /// - Throws: ``WriteError`` when any step fails; the temporary file is removed.
  public static func writeWithoutSync(
    _ bytes: [UInt8], to path: String, permissions: mode_t = 0o644
  )
    throws(WriteError)
  {
    let temporary = temporaryPath(for: path)
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
    guard descriptor >= 0 else {
      throw WriteError(path: path, reason: String(cString: strerror(errno)))
    }
    var failure: String? = nil
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          failure = String(cString: strerror(errno))
          return
        }
        offset += written
      }
    }
    if close(descriptor) != 0 && failure == nil { failure = String(cString: strerror(errno)) }
    if failure == nil && rename(temporary, path) != 0 { failure = String(cString: strerror(errno)) }
    if let failure {
      unlink(temporary)
      throw WriteError(path: path, reason: failure)
    }
  }
}
