import Foundation
import SystemFiles

/// Removing entries: one, all, stale `.part` files, and the oldest beyond the byte limit.
extension DiskCache {
  /// One file in the cache directory.
  struct Item {
    var url: URL
    var size: Int64
    var modified: Date
    /// When the entry was last used: its access time, which hits set (never before its modification).
    var used: Date
  }

  /// Removes one entry (what `PFFile.clearCachedData` did).
  /// - Parameter key: The entry's key.
  /// - Throws: ``CacheError/remove(path:reason:)`` when it exists and cannot be removed.
  public func removeEntry(for key: CacheKey) throws(CacheError) {
    try remove(url(for: key))
  }

  /// Removes every entry and every `.part` file not being written right now
  /// (what `PFFile.clearAllCachedData` did).
  /// - Throws: ``CacheError/remove(path:reason:)`` for the first file that cannot be removed.
  public func removeAll() throws(CacheError) {
    for item in items(including: { _ in true }) { try removeUnlessLocked(item.url) }
  }

  /// Removes `.part` and temporary files older than `age`, unless a download holds them.
  /// Temporary files include the hidden `.<name>.tmp-<pid>-<random>` of an atomic write (a
  /// thumbnail) that was killed before its rename.
  /// - Parameter age: The age in seconds, judged by modification time.
  /// - Returns: How many files were removed.
  @discardableResult
  public func removeStaleFiles(olderThan age: TimeInterval) -> Int {
    let limit = Date(timeIntervalSinceNow: -age)
    let stale = items(includingHidden: true) { $0.hasSuffix(".part") || $0.contains(".tmp") }.filter {
      $0.modified < limit
    }
    return stale.filter { (try? removeUnlessLocked($0.url)) == true }.count
  }

  /// The bytes taken by entries (not `.part` or temporary files).
  /// - Returns: The sum of the entries' sizes.
  public func totalSize() -> Int64 {
    items(including: Self.isEntry).reduce(0) { $0 + $1.size }
  }

  /// Evicts least-recently-used entries until they fit the byte limit; `key` is kept.
  func evictIfNeeded(keeping key: CacheKey) {
    guard let byteLimit else { return }
    var entries = items(including: Self.isEntry).sorted { $0.used < $1.used }
    var total = entries.reduce(0) { $0 + $1.size }
    while total > byteLimit, !entries.isEmpty {
      let oldest = entries.removeFirst()
      guard oldest.url.lastPathComponent != key.fileName else { continue }
      if (try? remove(oldest.url)) != nil { total -= oldest.size }
    }
  }

  static func isEntry(_ name: String) -> Bool { !name.hasSuffix(".part") && !name.contains(".tmp") }

  /// Regular files of the directory (hidden ones excluded unless `includingHidden`) whose names
  /// pass `filter`.
  func items(includingHidden: Bool = false, including filter: (String) -> Bool) -> [Item] {
    let names = (try? Directory.names(in: directory.path)) ?? []
    return names.compactMap { name in
      guard includingHidden || !name.hasPrefix("."), filter(name) else { return nil }
      let url = directory.appendingPathComponent(name)
      guard let status = try? FileStatus.withoutFollowingLinks(url.path), status.kind == .regular else { return nil }
      let modified = Date(timeIntervalSince1970: status.modified.secondsSinceEpoch)
      let accessed = Date(timeIntervalSince1970: status.accessed.secondsSinceEpoch)
      return Item(url: url, size: Int64(status.size), modified: modified, used: max(modified, accessed))
    }
  }

  private func remove(_ url: URL) throws(CacheError) {
    guard unlink(url.path) == 0 || errno == ENOENT else {
      throw .remove(path: url.path, reason: posixReason())
    }
  }

  /// Removes a file unless it is a `.part` file whose download holds the entry's lock.
  /// - Returns: Whether it was removed.
  @discardableResult
  private func removeUnlessLocked(_ file: URL) throws(CacheError) -> Bool {
    let name = file.lastPathComponent
    guard name.hasSuffix(".part") else {
      try remove(file)
      return true
    }
    guard let lock = try FileLock.tryAcquire(lockPath(forFileName: String(name.dropLast(5))))
    else { return false }
    defer { lock.unlock() }
    try remove(file)
    return true
  }
}
