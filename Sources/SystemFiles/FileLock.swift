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

  private init(path: String, descriptor: Int32) {
    self.path = path
    self.descriptor = descriptor
  }

  /// Takes the lock if no one holds it.
  /// - Parameter path: The lock file; created when missing, and its directory with it.
  /// - Returns: The held lock, or nil when another holder has it.
  /// - Throws: ``SystemError`` when the file cannot be opened or made.
  public static func tryAcquire(_ path: String) throws(SystemError) -> FileLock? {
    while true {
      var descriptor = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
      if descriptor < 0 && errno == ENOENT {
        try Directory.create(AtomicPublish.directory(of: path))
        descriptor = open(path, O_RDWR | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
      }
      guard descriptor >= 0 else { throw .last("open", path) }
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
        return FileLock(path: path, descriptor: descriptor)
      }
      Glibc.close(descriptor)
    }
  }

  /// Removes the lock file and releases the lock.
  public func unlock() {
    unlink(path)
    flock(descriptor, LOCK_UN)
    Glibc.close(descriptor)
  }
}
