#if canImport(Glibc)
  import Glibc
#endif

/// Opening a file that must be a regular file of its own folder: the name is opened relative to the
/// folder's descriptor (`openat`) with `O_NOFOLLOW`, so a symbolic link planted at the name (in a
/// cache shared between users, say) is refused instead of followed, and the descriptor is checked with
/// `fstat` to be a regular file. `O_NONBLOCK` keeps a FIFO at the name from blocking the open; the
/// descriptor is switched back to blocking before it is returned.
enum RegularFileOpen {
  /// Opens `path`.
  /// - Parameters:
  ///   - path: The file.
  ///   - flags: `O_RDONLY`, `O_WRONLY` or `O_RDWR`, with `O_CREAT` to create a missing file.
  ///   - permissions: The mode of a created file.
  ///   - folderMayBeLink: Whether the folder itself may be reached through a symbolic link (a cache
  ///     directory the user named through one); when false a linked folder is refused too.
  /// - Returns: The open descriptor, which the caller closes.
  /// - Throws: ``SystemError`` with the operation `open`: the system's reason,
  ///   ``SystemError/Reason/notRegularFile(_:)`` (a link, a FIFO, a directory …) or
  ///   ``SystemError/Reason/notDirectory(_:)`` for a linked folder.
  static func open(_ path: String, flags: Int32, permissions: mode_t = 0o644, folderMayBeLink: Bool = true)
    throws(SystemError) -> Int32
  {
    let folderPath = AtomicPublish.directory(of: path)
    let folder = try openFolder(folderPath, followingLinks: folderMayBeLink)
    defer { Glibc.close(folder) }
    let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    let descriptor = openat(folder, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, permissions)
    guard descriptor >= 0 else {
      switch errno {
      case ELOOP: throw SystemError(operation: "open", path: path, reason: .notRegularFile(.symbolicLink))
      // A FIFO with no reader refuses a non-blocking open for writing.
      case ENXIO: throw SystemError(operation: "open", path: path, reason: .notRegularFile(.fifo))
      default: throw .last("open", path)
      }
    }
    do throws(SystemError) {
      let status = try FileStatus(descriptor: descriptor, path: path)
      guard status.kind == .regular else {
        throw SystemError(operation: "open", path: path, reason: .notRegularFile(status.kind))
      }
      let current = fcntl(descriptor, F_GETFL)
      guard current >= 0, fcntl(descriptor, F_SETFL, current & ~O_NONBLOCK) == 0 else {
        throw SystemError.last("open", path)
      }
    } catch {
      Glibc.close(descriptor)
      throw error
    }
    return descriptor
  }

  /// Opens a folder for `openat`, refusing a symbolic link unless `followingLinks`.
  /// - Throws: ``SystemError`` with the operation `open` (`ENOENT` for a missing folder).
  static func openFolder(_ path: String, followingLinks: Bool) throws(SystemError) -> Int32 {
    let descriptor = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
    guard descriptor >= 0 else {
      let failure = SystemError.last("open", path)
      if failure.code == ELOOP || failure.code == ENOTDIR, let own = try? FileStatus.withoutFollowingLinks(path) {
        throw SystemError(operation: "open", path: path, reason: .notDirectory(own.kind))
      }
      throw failure
    }
    return descriptor
  }
}
