#if canImport(Glibc)
  import Glibc
#endif

/// An exclusive `flock` on a lock file, across processes, whose file is removed when it is released.
///
/// ```swift
/// if let lock = try FileLock.tryAcquire("cache/.locks/photo.jpg.lock") {
///   defer { lock.unlock() }   // also removes the file
///   …
/// }
/// ```
///
/// Removing the file on release is safe because every taker checks, once it holds the `flock`, that
/// the path still names the file it locked: one that locked a file removed meanwhile lets it go and
/// takes the file that is there now (creating it). So lock files exist only while held, or after a
/// holder was killed; a clean-up removes those by taking and releasing them.
public final class FileLock: Sendable {
  /// The lock file.
  public let path: String
  private let descriptor: Int32
  /// The lock file's folder, kept open so the release removes the name in the folder locked.
  private let folder: Int32
  private let name: String

  private init(path: String, descriptor: Int32, folder: Int32, name: String) {
    self.path = path
    self.descriptor = descriptor
    self.folder = folder
    self.name = name
  }

  /// Takes the lock if no one holds it.
  ///
  /// The lock file is opened relative to its folder with `O_NOFOLLOW`, and the folder without
  /// following a link either: a symbolic link planted at either (in a folder shared between users)
  /// is refused, so no other file is ever opened, locked or removed in its place.
  /// - Parameter path: The lock file; created when missing, and its directory with it.
  /// - Returns: The held lock, or nil when another holder has it.
  /// - Throws: ``SystemError`` when the file cannot be opened or made, or is not a regular file.
  public static func tryAcquire(_ path: String) throws(SystemError) -> FileLock? {
    let folderPath = AtomicPublish.directory(of: path)
    let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    while true {
      let descriptor: Int32
      do { descriptor = try RegularFileOpen.open(path, flags: O_RDWR | O_CREAT, folderMayBeLink: false) } catch {
        guard error.code == ENOENT, FileStatus.of(folderPath) == nil else { throw error }
        try Directory.create(folderPath)
        continue
      }
      guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
        let failure = errno
        Glibc.close(descriptor)
        if failure == EWOULDBLOCK { return nil }
        throw SystemError(operation: "lock", path: path, reason: .errno(failure))
      }
      // Someone may have removed the file between the open and the flock: then this lock guards
      // nothing, so take the file that is there now.
      if let held = try? FileStatus(descriptor: descriptor, path: path),
        let current = try? FileStatus.withoutFollowingLinks(path), held.isSameFile(as: current)
      {
        let folder: Int32
        do { folder = try RegularFileOpen.openFolder(folderPath, followingLinks: false) } catch {
          Glibc.close(descriptor)
          throw error
        }
        return FileLock(path: path, descriptor: descriptor, folder: folder, name: name)
      }
      Glibc.close(descriptor)
    }
  }

  /// Removes the lock file and releases the lock.
  public func unlock() {
    unlinkat(folder, name, 0)
    flock(descriptor, LOCK_UN)
    Glibc.close(descriptor)
    Glibc.close(folder)
  }
}
