#if canImport(Glibc)
  import Glibc
#endif

/// Publishes files so that readers see the old file or the complete new one, never a part.
///
/// For a new path or an existing regular file the bytes go to a hidden temporary file in the
/// same directory (`.<name>.tmp-<pid>-<random>`), which is flushed (`fsync`), renamed over the
/// destination, and the directory flushed too, so the new name survives a power failure.
///
/// A symbolic link at the destination is replaced by the new file, never written through: what it
/// points to is left as it was. A FIFO, device, socket or directory at the destination is refused
/// (``SystemError/Reason/notRegularFile(_:)``) unless the caller asks to write into it
/// (`writesIntoSpecialFiles`, the feature of `imgfetch decode -o`): then a character device
/// (`/dev/null`, a terminal) or a FIFO, named directly or through a link, is opened and written
/// directly, as `cp` and a shell redirection do, and a directory or a block device is still refused.
///
/// ```swift
/// try AtomicPublish.write(bytes, to: "out.raw")
/// ```
public enum AtomicPublish {
  /// Writes `bytes` to `path` atomically: a new file beside it, renamed over it.
  /// - Parameters:
  ///   - bytes: The complete contents.
  ///   - path: The destination; its directory must exist. A link there is replaced.
  ///   - permissions: The mode of a newly created file, 0644 by default.
  ///   - writesIntoSpecialFiles: Write into a FIFO or character device at `path` (or behind a link
  ///     there) instead of refusing it; off by default.
  ///   - flushesToDisk: `fsync` the file and the directory (the default). Without it readers still
  ///     see the old file or the complete new one, but after a power failure the new file may be
  ///     missing or incomplete: fine for derived files that are checked and rebuilt.
  /// - Throws: ``SystemError``; a temporary file is removed, the destination left as it was.
  public static func write(
    _ bytes: UnsafeRawBufferPointer, to path: String, permissions: mode_t = 0o644, flushesToDisk: Bool = true,
    writesIntoSpecialFiles: Bool = false
  ) throws(SystemError) {
    if writesIntoSpecialFiles, let existing = FileStatus.of(path), existing.kind != .regular {
      try writeDirectly(bytes, to: path, kind: existing.kind)
      return
    }
    if let own = try? FileStatus.withoutFollowingLinks(path), own.kind != .regular, own.kind != .symbolicLink {
      throw SystemError(operation: "write", path: path, reason: .notRegularFile(own.kind))
    }
    let temporary = temporaryPath(for: path)
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
    guard descriptor >= 0 else { throw .last("write", path) }
    var failure = Descriptors.writeAll(bytes, to: descriptor, path: path)
    if failure == nil && flushesToDisk && fsync(descriptor) != 0 { failure = .last("write", path) }
    if close(descriptor) != 0 && failure == nil { failure = .last("write", path) }
    if failure == nil && Glibc.rename(temporary, path) != 0 { failure = .last("write", path) }
    if let failure {
      unlink(temporary)
      throw failure
    }
    if flushesToDisk { try Directory.sync(directory(of: path)) }
  }

  /// Writes `bytes` to `path`; see the `UnsafeRawBufferPointer` variant.
  /// - Parameters:
  ///   - bytes: The complete contents.
  ///   - path: The destination.
  ///   - permissions: The mode of a newly created file.
  ///   - flushesToDisk: `fsync` the file and the directory (the default).
  ///   - writesIntoSpecialFiles: Write into a FIFO or character device at `path` (off by default).
  /// - Throws: ``SystemError``.
  public static func write(
    _ bytes: [UInt8], to path: String, permissions: mode_t = 0o644, flushesToDisk: Bool = true,
    writesIntoSpecialFiles: Bool = false
  ) throws(SystemError) {
    let result: Result<Void, SystemError> = bytes.withUnsafeBytes { raw in
      do throws(SystemError) {
        try write(
          raw, to: path, permissions: permissions, flushesToDisk: flushesToDisk,
          writesIntoSpecialFiles: writesIntoSpecialFiles)
      } catch { return .failure(error) }
      return .success(())
    }
    try result.get()
  }

  /// Makes a complete file, written elsewhere in the same directory, appear at `destination`:
  /// `fsync` of the file, `rename`, `fsync` of the directory.
  ///
  /// `file` is opened without following a link (a link planted in its place is refused, and never
  /// becomes `destination`), and `destination` is checked afterwards to be the very file that was
  /// flushed: one swapped in between is removed again.
  /// - Parameters:
  ///   - file: The finished file (a download's `.part`, say).
  ///   - destination: Its final path, on the same file system.
  /// - Throws: ``SystemError`` with the operation `open`, `sync` or `rename`; `file` is left in place.
  public static func rename(_ file: String, to destination: String) throws(SystemError) {
    let descriptor = try RegularFileOpen.open(file, flags: O_RDONLY)
    let synced = fsync(descriptor) == 0
    let failure = SystemError.last("sync", file)
    let flushed = try? FileStatus(descriptor: descriptor, path: file)
    close(descriptor)
    guard synced, let flushed else { throw failure }
    guard Glibc.rename(file, destination) == 0 else { throw .last("rename", destination) }
    let published = try? FileStatus.withoutFollowingLinks(destination)
    guard let published, published.kind == .regular, published.isSameFile(as: flushed) else {
      unlink(destination)
      throw SystemError(operation: "rename", path: file, reason: .notRegularFile(published?.kind ?? .unknown))
    }
    try Directory.sync(directory(of: destination))
  }

  /// `dir/.name.tmp-<pid>-<random>`: hidden, unique per process and call, in the same directory
  /// (so the rename never crosses file systems).
  /// - Parameter path: The destination.
  /// - Returns: The temporary path.
  public static func temporaryPath(for path: String) -> String {
    let slash = path.lastIndex(of: "/")
    let directory = slash.map { String(path[...$0]) } ?? ""
    let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
    let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    return "\(directory).\(name).tmp-\(getpid())-\(suffix)"
  }

  /// The directory part of a path (`.` for a bare name).
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// Writes into an existing device or FIFO without replacing it.
  private static func writeDirectly(_ bytes: UnsafeRawBufferPointer, to path: String, kind: FileKind)
    throws(SystemError)
  {
    guard kind == .characterDevice || kind == .fifo || kind == .socket else {
      throw SystemError(operation: "write", path: path, reason: .notRegularFile(kind))
    }
    // A FIFO without a reader would block the open forever: open non-blocking (ENXIO then), and
    // switch back to blocking writes once a reader is there.
    let descriptor = open(path, O_WRONLY | O_CLOEXEC | (kind == .fifo ? O_NONBLOCK : 0))
    guard descriptor >= 0 else {
      if kind == .fifo && errno == ENXIO {
        throw SystemError(operation: "write", path: path, reason: .fifoWithoutReader)
      }
      throw .last("write", path)
    }
    defer { close(descriptor) }
    if kind == .fifo {
      let flags = fcntl(descriptor, F_GETFL)
      guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else { throw .last("write", path) }
    }
    if let failure = Descriptors.writeAll(bytes, to: descriptor, path: path) { throw failure }
  }
}
