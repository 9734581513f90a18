internal import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// Writes files so that readers see either the old file or the complete new one, never a part:
/// the bytes go to a uniquely named temporary file in the same directory, are flushed to disk,
/// renamed over the destination, and the directory is flushed. A symbolic link at the destination is
/// replaced, never written through; a FIFO or device there is refused, or written directly (never
/// replaced) when `writesIntoSpecialFiles` is asked, as `imgfetch decode -o` does.
/// A thin wrapper over `SystemFiles.AtomicPublish` that keeps this module's error type.
public enum AtomicFile {
  /// Why an atomic write failed. Nothing is left at the destination or in the temporary file.
  public struct WriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The destination path.
    public let path: String
    /// What failed, from the system's error text.
    public let reason: String
    /// `path: cannot write: reason`.
    public var description: String { "\(path): cannot write: \(reason)" }

    init(_ error: SystemError) {
      path = error.path
      reason = error.message
    }

    /// A failure on the way to the destination (a folder that cannot be made), with the system's text.
    package init(path: String, reason: String) {
      self.path = path
      self.reason = reason
    }
  }

  /// Writes `bytes` to `path` atomically (temporary file, fsync, rename, fsync of the directory).
  /// - Parameters:
  ///   - bytes: The complete contents.
  ///   - path: The destination; its directory must exist. A link there is replaced; a character
  ///     device or FIFO there is refused, unless `writesIntoSpecialFiles`; a directory or block
  ///     device is always refused.
  ///   - permissions: The file mode, 0644 by default.
  ///   - writesIntoSpecialFiles: Write into a FIFO or character device (named directly or through a
  ///     link) instead of refusing it; off by default.
  ///   - flushesToDisk: `fsync` before the rename (the default). Without it readers still see the old
  ///     file or the complete new one, but after a power failure the new file may be missing or
  ///     incomplete: fine for derived files that are checked and rebuilt (thumbnails).
  /// - Throws: ``WriteError`` when any step fails; the temporary file is removed.
  public static func write(
    _ bytes: UnsafeRawBufferPointer, to path: String, permissions: mode_t = 0o644, flushesToDisk: Bool = true,
    writesIntoSpecialFiles: Bool = false
  ) throws(WriteError) {
    do {
      try AtomicPublish.write(
        bytes, to: path, permissions: permissions, flushesToDisk: flushesToDisk,
        writesIntoSpecialFiles: writesIntoSpecialFiles)
    } catch { throw WriteError(error) }
  }

  /// Writes `bytes` to `path` atomically; see the `UnsafeRawBufferPointer` variant.
  /// - Parameters:
  ///   - bytes: The complete contents.
  ///   - path: The destination.
  ///   - flushesToDisk: `fsync` before the rename (the default).
  /// - Throws: ``WriteError`` when any step fails.
  public static func write(_ bytes: [UInt8], to path: String, flushesToDisk: Bool = true) throws(WriteError) {
    do { try AtomicPublish.write(bytes, to: path, flushesToDisk: flushesToDisk) } catch { throw WriteError(error) }
  }

  /// `dir/.name.tmp-<pid>-<random>`: hidden, unique per process and call, in the same directory
  /// (so the rename never crosses file systems).
  /// - Parameter path: The destination.
  /// - Returns: The temporary path.
  public static func temporaryPath(for path: String) -> String { AtomicPublish.temporaryPath(for: path) }
}
