#if canImport(Glibc)
  import Glibc
#endif

/// Writes files so that readers see either the old file or the complete new one, never a part:
/// the bytes go to a uniquely named temporary file in the same directory, are flushed to disk,
/// and the temporary file is renamed over the destination.
public enum AtomicFile {
  /// Why an atomic write failed. Nothing is left at the destination or in the temporary file.
  public struct WriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The destination path.
    public let path: String
    /// What failed, from the system's error text.
    public let reason: String
    /// `path: cannot write: reason`.
    public var description: String { "\(path): cannot write: \(reason)" }
  }

  /// Writes `bytes` to `path` atomically (temporary file, fsync, rename).
  /// - Parameters:
  ///   - bytes: The complete contents.
  ///   - path: The destination; its directory must exist.
  ///   - permissions: The file mode, 0644 by default.
  ///   - flushesToDisk: `fsync` before the rename (the default). Without it readers still see the old
  ///     file or the complete new one, but after a power failure the new file may be missing or
  ///     incomplete: fine for derived files that are checked and rebuilt (thumbnails).
  /// - Throws: ``WriteError`` when any step fails; the temporary file is removed.
  public static func write(
    _ bytes: UnsafeRawBufferPointer, to path: String, permissions: mode_t = 0o644, flushesToDisk: Bool = true
  ) throws(WriteError) {
    let temporary = temporaryPath(for: path)
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, permissions)
    guard descriptor >= 0 else { throw WriteError(path: path, reason: systemError()) }
    var failure: String? = nil
    var offset = 0
    while offset < bytes.count {
      let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        failure = systemError()
        break
      }
      offset += written
    }
    if failure == nil && flushesToDisk && fsync(descriptor) != 0 { failure = systemError() }
    if close(descriptor) != 0 && failure == nil { failure = systemError() }
    if failure == nil && rename(temporary, path) != 0 { failure = systemError() }
    if let failure {
      unlink(temporary)
      throw WriteError(path: path, reason: failure)
    }
  }

  /// Writes `bytes` to `path` atomically; see the `UnsafeRawBufferPointer` variant.
  /// - Parameters:
  ///   - bytes: The complete contents.
  ///   - path: The destination.
  ///   - flushesToDisk: `fsync` before the rename (the default).
  /// - Throws: ``WriteError`` when any step fails.
  public static func write(_ bytes: [UInt8], to path: String, flushesToDisk: Bool = true) throws(WriteError) {
    let result: Result<Void, WriteError> = bytes.withUnsafeBytes { raw in
      do throws(WriteError) { try write(raw, to: path, flushesToDisk: flushesToDisk) } catch {
        return .failure(error)
      }
      return .success(())
    }
    try result.get()
  }

  /// `dir/.name.tmp-<pid>-<random>`: hidden, unique per process and call, in the same directory
  /// (so the rename never crosses file systems).
  public static func temporaryPath(for path: String) -> String {
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    return "\(directory).\(name).tmp-\(getpid())-\(suffix)"
  }

  private static func systemError() -> String { String(cString: strerror(errno)) }
}
