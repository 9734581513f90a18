import FoundationEssentials
import SystemFiles

/// The role of the store behind a ``FileFetcher``: where entries and `.part` files live, how a
/// validated download becomes an entry, and the lock that keeps two writers of one entry apart.
///
/// ``DiskCache`` is the default. A test can give a ``FileFetcher`` an in-memory fake.
public protocol FileCaching: Sendable {
  /// The entry for `key` if it is stored (marking it recently used), without validation.
  func cachedFile(for key: CacheKey) -> String?
  /// Where the entry for `key` is (or would be) stored, whether or not it is there now.
  func path(for key: CacheKey) -> String
  /// Where the download for `key` is written until it is validated.
  func partPath(for key: CacheKey) -> String
  /// Makes a validated `.part` file the entry for `key`; returns the entry's path.
  func store(_ part: String, as key: CacheKey) throws(CacheError) -> String
  /// Removes the entry for `key` (no error when it is absent).
  func removeEntry(for key: CacheKey) throws(CacheError)
  /// Waits for the exclusive right to download and store `key` (across processes for a
  /// ``DiskCache``); throws `CancellationError` when the task is cancelled while waiting.
  func lockEntry(_ key: CacheKey) async throws -> any EntryLock
  /// Tells the cache that a file made from one of its entries (a thumbnail) was written at `path`,
  /// so that a byte budget counts it. The default does nothing.
  func didWriteDerivedFile(at path: String)
}

extension FileCaching {
  /// Does nothing: a cache without a budget need not know.
  public func didWriteDerivedFile(at path: String) {}
}

/// A held ``FileCaching/lockEntry(_:)`` lock.
public protocol EntryLock: Sendable {
  /// Releases the lock.
  func unlock()
}

extension FileLock: EntryLock {}

extension DiskCache: FileCaching {
  /// Takes the entry's `flock`, polling so the wait stays cancellable.
  /// - Parameter key: The entry's key.
  /// - Returns: The held lock.
  /// - Throws: ``CacheError`` when the lock file cannot be opened, or `CancellationError`.
  public func lockEntry(_ key: CacheKey) async throws -> any EntryLock { try await lock(key) }
}
