import Foundation
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// An exclusive `flock` on a lock file, so processes sharing a cache directory never download
/// or store the same entry at once. Released by ``unlock()``.
final class FileLock: Sendable {
  private let descriptor: Int32

  private init(descriptor: Int32) { self.descriptor = descriptor }

  /// Waits for the lock, polling so the wait stays cancellable.
  /// - Parameter path: The lock file; created when missing.
  /// - Returns: The held lock.
  /// - Throws: ``CacheError/directory(path:reason:)`` when the file cannot be opened, or
  ///   `CancellationError`.
  static func acquire(_ path: String) async throws -> FileLock {
    while true {
      if let lock = try tryAcquire(path) { return lock }
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  /// Takes the lock if it is free.
  /// - Parameter path: The lock file; created when missing.
  /// - Returns: The held lock, or nil when another holder has it.
  /// - Throws: ``CacheError/directory(path:reason:)`` when the file cannot be opened.
  static func tryAcquire(_ path: String) throws(CacheError) -> FileLock? {
    while true {
      let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
      guard descriptor >= 0 else { throw .directory(path: path, reason: posixReason()) }
      guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
        close(descriptor)
        return nil
      }
      // Someone may have deleted the lock file between open and flock: then this lock guards
      // nothing, so take the file that is there now.
      if let held = try? FileStatus(descriptor: descriptor, path: path), let current = FileStatus.of(path),
        held.isSameFile(as: current)
      {
        return FileLock(descriptor: descriptor)
      }
      close(descriptor)
    }
  }

  /// Releases the lock.
  func unlock() {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }
}
