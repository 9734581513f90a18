#if canImport(Glibc)
  import Glibc
#endif

/// Operations on paths that are not about a file's contents: removing, touching, checking access,
/// flushing, and the process's current and home directories.
public enum FileSystem {
  /// Removes a file (not a directory), as `unlink`.
  /// - Parameter path: The file.
  /// - Returns: False when there was nothing to remove.
  /// - Throws: ``SystemError`` with the operation `remove` for any other failure.
  @discardableResult
  public static func remove(_ path: String) throws(SystemError) -> Bool {
    if unlink(path) == 0 { return true }
    if errno == ENOENT { return false }
    throw .last("remove", path)
  }

  /// Removes an empty directory, as `rmdir`.
  /// - Parameter path: The directory.
  /// - Returns: False when it is missing or not empty (it then stays).
  /// - Throws: ``SystemError`` with the operation `remove` for any other failure.
  @discardableResult
  public static func removeEmptyDirectory(_ path: String) throws(SystemError) -> Bool {
    if rmdir(path) == 0 { return true }
    if errno == ENOENT || errno == ENOTEMPTY || errno == EEXIST { return false }
    throw .last("remove", path)
  }

  /// Sets a file's access time to now and leaves its modification time (`utimensat`), as a cache
  /// marks an entry it served. A symbolic link at `path` is touched itself, never what it points to.
  /// - Parameter path: The file.
  /// - Throws: ``SystemError`` with the operation `touch` (a missing file: `ENOENT`; a read-only
  ///   file system: `EROFS`).
  public static func markAccessed(_ path: String) throws(SystemError) {
    let (now, omit) = ((1 << 30) - 1, (1 << 30) - 2)  // UTIME_NOW, UTIME_OMIT (macros Swift cannot see)
    var times = [timespec(tv_sec: 0, tv_nsec: now), timespec(tv_sec: 0, tv_nsec: omit)]
    guard utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) == 0 else { throw .last("touch", path) }
  }

  /// Whether this process may read `path` (`access(R_OK)`).
  /// - Parameter path: The path.
  /// - Returns: True when it exists and is readable.
  public static func isReadable(_ path: String) -> Bool { access(path, R_OK) == 0 }

  /// Flushes a file's data to disk (`fsync`), by path.
  /// - Parameter path: The file.
  /// - Throws: ``SystemError`` with the operation `sync`.
  public static func flush(_ path: String) throws(SystemError) {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { throw .last("sync", path) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw .last("sync", path) }
  }

  /// The path with every symbolic link, `.` and `..` resolved as the system resolves them
  /// (`realpath`): what `a/link/../b` really names, which reading it lexically would not tell.
  /// - Parameter path: An existing path.
  /// - Returns: The absolute path, or nil when a component is missing or cannot be read.
  public static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The current directory (`getcwd`), or nil when it cannot be read (removed, or too long).
  public static func currentDirectory() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The home directory: `HOME`, else the user's entry in the password database (`getpwuid_r`).
  /// - Returns: The path, or nil when neither names one.
  public static func homeDirectory() -> String? {
    if let home = ProcessEnvironment.variable("HOME"), !home.isEmpty { return home }
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil, let directory = entry.pw_dir
    else { return nil }
    return String(cString: directory)
  }
}
