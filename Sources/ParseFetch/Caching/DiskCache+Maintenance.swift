import FoundationEssentials
import SystemFiles

/// Removing entries: one, all, and stale `.part` files (the oldest beyond a byte budget: DiskCache+Eviction).
/// Every one of them looks only at files ``CacheFile`` recognises, in the cache directory and in its
/// `.locks` directory; anything else is never counted and never removed.
extension DiskCache {
  /// One file of the cache.
  struct Item {
    var path: String
    var kind: CacheFile
    var size: Int64
    var modified: Date
    /// When the entry was last used: its access time, which hits set (never before its modification).
    var used: Date
  }

  /// Removes one entry (what `PFFile.clearCachedData` did).
  /// - Parameter key: The entry's key.
  /// - Throws: ``CacheError/remove(path:reason:)`` when it exists and cannot be removed.
  public func removeEntry(for key: CacheKey) throws(CacheError) {
    try remove(path(for: key))
  }

  /// Removes every entry, thumbnail, temporary and lock file, and every `.part` file, except those of
  /// a download running right now (what `PFFile.clearAllCachedData` did); the `.locks` directory goes
  /// too once it is empty. Files the cache did not make stay, so a cache of its own files alone is
  /// left holding its `CACHEDIR.TAG` only.
  /// - Returns: What was removed, by kind of file (counts and bytes).
  /// - Throws: ``CacheError/remove(path:reason:)`` for the first file that cannot be removed.
  @discardableResult
  public func removeAll() throws(CacheError) -> Statistics {
    var removed = Statistics()
    for item in items(including: { $0 != .foreign && $0 != .tag }) where try removeUnlessLocked(item) {
      removed.count(item)
    }
    removeLocksDirectoryIfEmpty()
    return removed
  }

  /// Removes `.part` and temporary files older than `age`, unless a download holds them, and every
  /// lock file no process holds (one a killed download left behind).
  /// Temporary files include the hidden `.<name>.tmp-<pid>-<random>` of an atomic write (a
  /// thumbnail) that was killed before its rename.
  /// - Parameters:
  ///   - age: The age in seconds, judged by modification time.
  ///   - removing: `false` counts what would be removed and removes nothing (`imgfetch cache gc
  ///     --dry-run`; a file a download holds is counted too).
  /// - Returns: What was removed, by kind of file (counts and bytes).
  @discardableResult
  public func removeStaleFiles(olderThan age: TimeInterval, removing: Bool = true) -> Statistics {
    let limit = Date(timeIntervalSinceNow: -age)
    let stale = items { $0.isTransient || $0 == .lock }.filter { $0.kind == .lock || $0.modified < limit }
    var removed = Statistics()
    guard removing else {
      for item in stale { removed.count(item) }
      return removed
    }
    for item in stale where (try? removeUnlessLocked(item)) == true { removed.count(item) }
    removeLocksDirectoryIfEmpty()
    return removed
  }

  /// What the cache holds (or what a removal removed), by kind of file; files it did not make are
  /// not counted.
  public struct Statistics: Sendable, Equatable {
    /// Validated entries.
    public var entries = 0
    /// Thumbnails made from entries.
    public var thumbnails = 0
    /// Downloads not yet validated (`.part`).
    public var partialDownloads = 0
    /// Temporary files of atomic writes.
    public var temporaryFiles = 0
    /// Lock files: those of downloads running now, and any a killed process left behind.
    public var lockFiles = 0
    /// The bytes taken by entries.
    public var entryBytes: Int64 = 0
    /// The bytes taken by thumbnails.
    public var thumbnailBytes: Int64 = 0
    /// The bytes taken by `.part` files.
    public var partialBytes: Int64 = 0
    /// The bytes taken by temporary files.
    public var temporaryBytes: Int64 = 0
    /// The bytes taken by every file counted above.
    public var totalBytes: Int64 = 0

    /// How many files are counted, of every kind.
    public var files: Int { entries + thumbnails + partialDownloads + temporaryFiles + lockFiles }

    /// Adds another count (what two removals removed together).
    /// - Parameter other: The other count.
    public mutating func add(_ other: Statistics) {
      entries += other.entries
      thumbnails += other.thumbnails
      partialDownloads += other.partialDownloads
      temporaryFiles += other.temporaryFiles
      lockFiles += other.lockFiles
      entryBytes += other.entryBytes
      thumbnailBytes += other.thumbnailBytes
      partialBytes += other.partialBytes
      temporaryBytes += other.temporaryBytes
      totalBytes += other.totalBytes
    }

    /// Counts one file under its kind.
    mutating func count(_ item: Item) {
      switch item.kind {
      case .entry:
        entries += 1
        entryBytes += item.size
      case .thumbnail:
        thumbnails += 1
        thumbnailBytes += item.size
      case .partial:
        partialDownloads += 1
        partialBytes += item.size
      case .temporary:
        temporaryFiles += 1
        temporaryBytes += item.size
      case .lock: lockFiles += 1
      case .tag, .foreign: return
      }
      totalBytes += item.size
    }
  }

  /// Counts the cache's files by kind (``CacheFile``).
  /// - Returns: The counts and sizes.
  public func statistics() -> Statistics {
    var statistics = Statistics()
    for item in items(including: { $0 != .foreign && $0 != .tag }) { statistics.count(item) }
    return statistics
  }

  /// The bytes taken by entries (not `.part` or temporary files).
  /// - Returns: The sum of the entries' sizes.
  public func totalSize() -> Int64 {
    items { $0 == .entry }.reduce(0) { $0 + $1.size }
  }

  /// Regular files of the cache whose kind passes `filter`: those of the directory, and (when lock
  /// files pass) those of its `.locks` directory.
  func items(including filter: (CacheFile) -> Bool) -> [Item] {
    var found = items(in: directory, inLocks: false, including: filter)
    if filter(.lock) {
      found += items(in: file(CacheFile.locksDirectoryName), inLocks: true, including: filter)
    }
    return found
  }

  private func items(in folder: String, inLocks: Bool, including filter: (CacheFile) -> Bool) -> [Item] {
    let names = (try? Directory.names(in: folder)) ?? []
    return names.compactMap { name in
      let kind = CacheFile(fileName: name, inLocks: inLocks)
      guard filter(kind) else { return nil }
      let path = folder + "/" + name
      guard let status = try? FileStatus.withoutFollowingLinks(path), status.kind == .regular else { return nil }
      let modified = Date(timeIntervalSince1970: status.modified.secondsSinceEpoch)
      let accessed = Date(timeIntervalSince1970: status.accessed.secondsSinceEpoch)
      return Item(path: path, kind: kind, size: Int64(status.size), modified: modified, used: max(modified, accessed))
    }
  }

  func remove(_ path: String) throws(CacheError) {
    do { try FileSystem.remove(path) } catch { throw .remove(path: path, reason: error.message) }
  }

  /// Removes a file unless it is a download's: a `.part` file whose entry's lock is held, or a lock
  /// file that is held. A free lock file is removed by taking it and letting it go.
  /// - Returns: Whether it was removed.
  @discardableResult
  func removeUnlessLocked(_ item: Item) throws(CacheError) -> Bool {
    let lockPath: String
    switch item.kind {
    case .partial(let entry): lockPath = self.lockPath(forFileName: entry)
    case .lock: lockPath = item.path
    default:
      try remove(item.path)
      return true
    }
    let lock: FileLock?
    do { lock = try FileLock.tryAcquire(lockPath) } catch { throw .remove(path: item.path, reason: error.message) }
    guard let lock else { return false }
    if item.kind != .lock {
      do { try remove(item.path) } catch {
        lock.unlock()
        throw error
      }
    }
    lock.unlock()  // removes the lock file too
    return true
  }

  /// Removes the `.locks` directory when nothing is left in it (a lock taken meanwhile makes it again).
  private func removeLocksDirectoryIfEmpty() {
    _ = try? FileSystem.removeEmptyDirectory(file(CacheFile.locksDirectoryName))
  }
}
