import FoundationEssentials
import SystemFiles

/// Keeping the cache within its byte budget: the least recently used entries go first, each with
/// the thumbnails made from it.
///
/// The budget counts the files a cache keeps: entries and their thumbnails. `.part` files of
/// running downloads, temporary files and locks are not evicted (`gc` removes stale ones). An entry
/// whose download or store is running (its lock is held, in any process) is never evicted, nor the
/// entry just stored. An entry's last use is the later of its access time (hits set it) and its
/// thumbnails'; thumbnails whose entry is gone are the first to go.
///
/// Scanning the directory on every store would make a long run quadratic, so the cache keeps a
/// running total of what it stored since its last scan, and scans (and evicts) only when that total
/// passes the budget; eviction then goes down to 90% of the budget, so that the next scan is some
/// stores away. Another process sharing the directory is seen at the next scan.
extension DiskCache {
  /// The part of the budget eviction leaves free, so that not every store scans the directory.
  static let evictionLowWater = 0.9

  /// One entry with the thumbnails made from it: what eviction removes together.
  struct EvictionGroup {
    var entry: Item?
    var thumbnails: [Item] = []
    var bytes: Int64 { (entry?.size ?? 0) + thumbnails.reduce(0) { $0 + $1.size } }
    var used: Date { ([entry?.used].compactMap { $0 } + thumbnails.map(\.used)).max() ?? .distantPast }
    var items: [Item] { [entry].compactMap { $0 } + thumbnails }
  }

  /// The bytes the budget counts: entries and their thumbnails.
  /// - Returns: Their sizes' sum.
  public func budgetedSize() -> Int64 {
    items { $0 == .entry || $0.isThumbnail }.reduce(0) { $0 + $1.size }
  }

  /// Evicts the least recently used entries, with their thumbnails, until entries and thumbnails
  /// take at most `bytes`. Entries being downloaded or stored (their lock held) stay.
  /// - Parameters:
  ///   - bytes: The size to fit in.
  ///   - kept: Entries (by file name) never to evict.
  ///   - removing: `false` counts what would be evicted and removes nothing (`imgfetch cache gc
  ///     --max-size SIZE --dry-run`).
  /// - Returns: What was removed, by kind of file.
  @discardableResult
  public func evict(toFit bytes: Int64, keeping kept: Set<String> = [], removing: Bool = true) -> Statistics {
    let groups = evictionGroups()
    var total = groups.values.reduce(0) { $0 + $1.bytes }
    var removed = Statistics()
    for (name, group) in groups.sorted(by: { $0.value.used < $1.value.used }) {
      guard total > bytes else { break }
      if kept.contains(name) || isBeingStored(name) { continue }
      var freed: Int64 = 0
      for item in group.items where !removing || (try? remove(item.path)) != nil {
        removed.count(item)
        freed += item.size
      }
      total -= freed
    }
    if removing { runningTotal.withLock { $0 = total } }
    return removed
  }

  /// After a store (or a thumbnail written into the cache): adds `bytes` to the running total, and
  /// evicts down to the low-water mark when the total passes the budget. No budget, no work.
  /// - Parameters:
  ///   - bytes: What was just added.
  ///   - kept: The entry just stored or used, which stays.
  func accountForStore(of bytes: Int64, keeping kept: String?) {
    guard let byteLimit else { return }
    let total = runningTotal.withLock { total -> Int64? in
      guard let known = total else { return nil }
      total = known + bytes
      return known + bytes
    }
    if let total, total <= byteLimit { return }
    evict(toFit: Int64(Double(byteLimit) * Self.evictionLowWater), keeping: kept.map { [$0] } ?? [])
  }

  /// Counts a thumbnail written into the cache directory against the budget (evicting when it
  /// passes), keeping the entry it was made from. Files elsewhere are not the cache's.
  /// - Parameter path: The thumbnail's path.
  public func didWriteDerivedFile(at path: String) {
    let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
    guard path[..<slash].dropLast() == directory, case .thumbnail(let entry) = CacheFile(fileName: String(path[slash...])),
      let status = try? FileStatus.withoutFollowingLinks(path), status.kind == .regular
    else { return }
    accountForStore(of: Int64(status.size), keeping: entry)
  }

  /// Keeps the cache within its budget now (the end of a batch: the thumbnails written since the
  /// last store count too). No budget, no work.
  /// - Returns: What was removed.
  @discardableResult
  public func enforceBudget() -> Statistics {
    guard let byteLimit else { return Statistics() }
    return evict(toFit: byteLimit)
  }

  /// Entries and thumbnails, grouped by entry name.
  private func evictionGroups() -> [String: EvictionGroup] {
    var groups: [String: EvictionGroup] = [:]
    for item in items(including: { $0 == .entry || $0.isThumbnail }) {
      switch item.kind {
      case .entry: groups[String(item.path.split(separator: "/").last ?? ""), default: EvictionGroup()].entry = item
      case .thumbnail(let entry): groups[entry, default: EvictionGroup()].thumbnails.append(item)
      default: continue
      }
    }
    return groups
  }

  /// Whether a download or store of the entry is running: its lock file is held by some process.
  private func isBeingStored(_ name: String) -> Bool {
    let path = lockPath(forFileName: name)
    guard FileStatus.of(path) != nil else { return false }
    guard let lock = try? FileLock.tryAcquire(path) else { return true }
    lock.unlock()
    return false
  }
}

extension CacheFile {
  /// Whether this is a thumbnail made from an entry.
  var isThumbnail: Bool {
    if case .thumbnail = self { true } else { false }
  }
}
