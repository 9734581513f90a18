import Foundation
import ParseFixtureSupport
import SystemFiles
import Testing

@testable import ParseFetch

@Suite(.timeLimit(.minutes(30))) struct DiskCacheTests {
  let directory: URL
  init() throws { directory = try TestFiles.scratchDirectory() }

  func put(_ cache: DiskCache, _ name: String, bytes: Int) throws -> String {
    let key = CacheKey(parseFileName: name)
    try write(bytes, to: cache.partPath(for: key))
    return try cache.store(cache.partPath(for: key), as: key)
  }

  func age(_ path: String, seconds: TimeInterval) throws {
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -seconds)], ofItemAtPath: path)
  }

  func write(_ count: Int, to path: String) throws { try Data(count: count).write(to: URL(fileURLWithPath: path)) }

  @Test func defaultsToXDGCacheHomeThenHome() {
    #expect(
      DiskCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "/x/c", "HOME": "/h"])
        == "/x/c/imgfetch")
    #expect(DiskCache.defaultDirectory(environment: ["HOME": "/h"]) == "/h/.cache/imgfetch")
    #expect(
      DiskCache.defaultDirectory(environment: ["XDG_CACHE_HOME": "rel", "HOME": "/h"])
        == "/h/.cache/imgfetch")
  }

  @Test func storesByRenamingThePart() throws {
    let cache = try DiskCache(directory: directory.path)
    let key = CacheKey(parseFileName: "a_b.png")
    #expect(cache.cachedFile(for: key) == nil)
    let entry = try put(cache, "a_b.png", bytes: 10)
    #expect(cache.cachedFile(for: key) == entry)
    #expect(!FileManager.default.fileExists(atPath: cache.partPath(for: key)))
  }

  @Test func aHitMovesTheAccessTimeButNotTheModificationTime() throws {
    // The modification time stays the download's, so thumbnails made from the entry stay valid.
    let cache = try DiskCache(directory: directory.path)
    let entry = try put(cache, "a_b.png", bytes: 10)
    try age(entry, seconds: 3600)
    _ = cache.cachedFile(for: CacheKey(parseFileName: "a_b.png"))
    let values = try URL(fileURLWithPath: entry).resourceValues(forKeys: [
      .contentModificationDateKey, .contentAccessDateKey,
    ])
    #expect(values.contentAccessDate.map { $0.timeIntervalSinceNow > -60 } == true)
    #expect(values.contentModificationDate.map { $0.timeIntervalSinceNow < -3000 } == true)
  }

  @Test func evictsTheLeastRecentlyUsedBeyondTheBudget() throws {
    let cache = try DiskCache(directory: directory.path, byteLimit: 2500)
    try age(try put(cache, "old.png", bytes: 1000), seconds: 300)
    try age(try put(cache, "used.png", bytes: 1000), seconds: 200)
    _ = cache.cachedFile(for: CacheKey(parseFileName: "used.png"))  // now the most recent
    _ = try put(cache, "new.png", bytes: 1000)
    #expect(cache.cachedFile(for: CacheKey(parseFileName: "old.png")) == nil)
    #expect(cache.cachedFile(for: CacheKey(parseFileName: "used.png")) != nil)
    #expect(cache.cachedFile(for: CacheKey(parseFileName: "new.png")) != nil)
    #expect(cache.totalSize() == 2000)
  }

  /// Issue 32: an entry goes with its thumbnails, and one whose download holds its lock stays.
  @Test func evictsAnEntryWithItsThumbnailsAndNeverOneBeingDownloaded() throws {
    let cache = try DiskCache(directory: directory.path, byteLimit: 2500)
    let locked = try put(cache, "locked.png", bytes: 1000)
    let old = try put(cache, "old.png", bytes: 1000)
    try write(200, to: old + ".thumb-64.png")
    cache.didWriteDerivedFile(at: old + ".thumb-64.png")
    try age(locked, seconds: 400)
    try age(old, seconds: 300)
    try age(old + ".thumb-64.png", seconds: 300)
    let lock = try #require(try FileLock.tryAcquire(cache.lockPath(forFileName: "locked.png")))
    defer { lock.unlock() }
    _ = try put(cache, "new.png", bytes: 1000)  // 3200 bytes: over the budget
    #expect(FileManager.default.fileExists(atPath: locked), "its download holds the lock")
    #expect(!FileManager.default.fileExists(atPath: old))
    #expect(!FileManager.default.fileExists(atPath: old + ".thumb-64.png"), "evicted with its entry")
    #expect(cache.budgetedSize() == 2000)
  }

  @Test func keepsANewEntryLargerThanTheBudget() throws {
    let cache = try DiskCache(directory: directory.path, byteLimit: 100)
    _ = try put(cache, "big.png", bytes: 1000)
    #expect(cache.cachedFile(for: CacheKey(parseFileName: "big.png")) != nil)
  }

  @Test func removesOneEntry() throws {
    let cache = try DiskCache(directory: directory.path)
    _ = try put(cache, "a.png", bytes: 1)
    _ = try put(cache, "b.png", bytes: 1)
    try cache.removeEntry(for: CacheKey(parseFileName: "a.png"))
    try cache.removeEntry(for: CacheKey(parseFileName: "missing.png"))
    #expect(cache.cachedFile(for: CacheKey(parseFileName: "a.png")) == nil)
    #expect(cache.cachedFile(for: CacheKey(parseFileName: "b.png")) != nil)
  }

  @Test func removesAllButPartsInUse() async throws {
    let cache = try DiskCache(directory: directory.path)
    _ = try put(cache, "a.png", bytes: 1)
    let busy = CacheKey(parseFileName: "busy.png")
    try write(5, to: cache.partPath(for: busy))
    try Data(count: 5).write(to: URL(fileURLWithPath: cache.partPath(for: CacheKey(parseFileName: "idle.png"))))
    try Data(count: 3).write(to: directory.appendingPathComponent("a.png.thumb-64.png"))
    let lock = try await cache.lock(busy)
    #expect(try cache.removeAll().files == 3)
    lock.unlock()
    let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
      !$0.hasPrefix(".")
    }
    #expect(Set(left) == ["busy.png.part", "CACHEDIR.TAG"])
  }

  /// `gc`: stale `.part` and temporary files, and every lock file no download holds (a killed
  /// one's); the `.locks` directory goes once it is empty.
  @Test func cleansStalePartTemporaryAndLeftoverLockFiles() throws {
    let cache = try DiskCache(directory: directory.path)
    let fresh = cache.partPath(for: CacheKey(parseFileName: "fresh.png"))
    let stale = cache.partPath(for: CacheKey(parseFileName: "stale.png"))
    let temp = directory.appendingPathComponent(".x.png.thumb-64.png.tmp-123-abc").path
    let leftover = cache.lockPath(forFileName: "gone.png")  // a killed download's lock file
    for path in [fresh, stale, temp, leftover] { try write(1, to: path) }
    try age(stale, seconds: 7200)
    try age(temp, seconds: 7200)
    let entry = try put(cache, "keep.png", bytes: 1)
    try age(entry, seconds: 7200)
    let held = try #require(try FileLock.tryAcquire(cache.lockPath(forFileName: "busy.png")))
    #expect(cache.statistics().lockFiles == 2)
    #expect(cache.removeStaleFiles(olderThan: 3600).files == 3)
    let locks = directory.appendingPathComponent(".locks").path
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: locks)) == ["busy.png.lock"], "a held lock stays")
    held.unlock()  // removes its file
    #expect(cache.removeStaleFiles(olderThan: 3600).files == 0)
    let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    #expect(left == ["CACHEDIR.TAG", "fresh.png.part", "keep.png"])
  }

  /// `clear` empties a cache down to its tag: entries, thumbnails, partial downloads, temporary
  /// files, lock files (a finished download's and a killed one's) and the `.locks` directory.
  @Test func clearLeavesOnlyTheTag() async throws {
    let cache = try DiskCache(directory: directory.path)
    _ = try put(cache, "a.png", bytes: 2)
    try write(3, to: directory.appendingPathComponent("a.png.thumb-64.png").path)
    try write(4, to: cache.partPath(for: CacheKey(parseFileName: "idle.png")))
    try write(1, to: directory.appendingPathComponent(".a.png.thumb-64.png.tmp-123-abc").path)
    try write(0, to: cache.lockPath(forFileName: "gone.png"))  // a killed download's lock file
    let lock = try await cache.lock(CacheKey(parseFileName: "done.png"))
    lock.unlock()
    _ = try cache.removeAll()
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["CACHEDIR.TAG"])
  }

  @Test func reportsADirectoryItCannotCreate() throws {
    let file = directory.appendingPathComponent("file")
    try Data().write(to: file)
    #expect(throws: CacheError.self) {
      try DiskCache(directory: file.appendingPathComponent("sub").path)
    }
  }

  @Test func tagsTheDirectoryItCreates() throws {
    let made = directory.appendingPathComponent("new/cache")
    _ = try DiskCache(directory: made.path)
    let tag = try String(contentsOf: made.appendingPathComponent("CACHEDIR.TAG"), encoding: .utf8)
    #expect(tag.hasPrefix("Signature: 8a477f597d28d172789f06886806bc55\n#"))
    #expect(DiskCache.isTagged(made.path))
  }

  @Test func refusesAnUntaggedDirectoryOfOtherFilesAndTouchesNothing() throws {
    for name in ["Notes.txt", "holiday.jpg"] {
      try Data(count: 4).write(to: directory.appendingPathComponent(name))
    }
    do {
      _ = try DiskCache(directory: directory.path)
      Issue.record("used a directory imgfetch did not make")
    } catch {
      guard case .notACache(let path) = error else { throw error }
      #expect(path == directory.path)
      #expect(
        error.description
          == "\(directory.path) is not an imgfetch cache (no CACHEDIR.TAG, and it holds other files); choose another cache directory"
      )
    }
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) == ["Notes.txt", "holiday.jpg"])
  }

  @Test func aFolderHoldingALocksFolderAndEntryShapedNamesIsNotAdopted() throws {
    // Issue 30.9: a `.locks` folder (as many tools' caches have) and names that read as entries made
    // such a folder "a cache of an earlier imgfetch"; it was tagged, and clear removed its files.
    try FileManager.default.createDirectory(
      at: directory.appendingPathComponent(".locks"), withIntermediateDirectories: true)
    try Data(count: 4).write(to: directory.appendingPathComponent("notes.txt"))
    try Data(count: 4).write(to: directory.appendingPathComponent("budget-2024.ods"))
    #expect(throws: CacheError.self) { try DiskCache(directory: directory.path) }
    #expect(!DiskCache.isTagged(directory.path))
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
        == [".locks", "notes.txt", "budget-2024.ods"])
  }

  @Test func aLinkPlantedAsAnEntryIsNoHitAndIsReplacedByTheDownload() throws {
    // Issue 30.6: an entry must be the file the cache stored, not a link to someone's file, which a
    // hit would serve as a validated image (and whose access time it would move).
    let cache = try DiskCache(directory: directory.path)
    let key = CacheKey(parseFileName: "photo.jpg")
    let victim = directory.appendingPathComponent("victim.txt")
    try Data("someone's file".utf8).write(to: victim)
    try FileManager.default.createSymbolicLink(atPath: cache.path(for: key), withDestinationPath: victim.path)
    #expect(cache.cachedFile(for: key) == nil)
    try write(10, to: cache.partPath(for: key))
    let entry = try cache.store(cache.partPath(for: key), as: key)
    #expect(try FileStatus.withoutFollowingLinks(entry).kind == .regular)
    #expect(cache.cachedFile(for: key) == entry)
    #expect(try Data(contentsOf: victim) == Data("someone's file".utf8))
  }

  @Test func anEmptyFolderIsAdoptedAndTagged() throws {
    let cache = try DiskCache(directory: directory.path)
    #expect(DiskCache.isTagged(cache.directory))
    #expect(cache.statistics().files == 0)
  }

  @Test func aMissingDirectoryIsNotCreatedWhenOnlyLookedAt() throws {
    let missing = directory.appendingPathComponent("nothing-here")
    #expect {
      try DiskCache(directory: missing.path, creating: false)
    } throws: { error in
      guard case CacheError.missing(let path) = error else { return false }
      return path == missing.path
    }
    #expect(!FileManager.default.fileExists(atPath: missing.path))
  }

  @Test func anEntryWhoseNameContainsTmpIsCountedAndKept() throws {
    // Issue 11.5: `pic.tmpl` from a URL is cached as `pic+<hash>.tmpl`; gc deleted it and stats
    // showed 0 B.
    let cache = try DiskCache(directory: directory.path)
    let key = CacheKey(url: "https://cdn.example/pic.tmpl")
    try write(1234, to: cache.partPath(for: key))
    let entry = try cache.store(cache.partPath(for: key), as: key)
    try age(entry, seconds: 7200)
    #expect(cache.removeStaleFiles(olderThan: 0).files == 0)
    #expect(FileManager.default.fileExists(atPath: entry))
    #expect(cache.totalSize() == 1234)
  }

  @Test func aCreatorThatFindsAnotherCreatorsFreshTagAdoptsTheDirectory() throws {
    // The race behind a failed parallel shard: another process published its tag after this one
    // looked for it, before that process made `.locks`. The directory holds only the tag (and
    // perhaps a temporary), which is a cache being made, not someone else's files.
    let fresh = directory.appendingPathComponent("being-made")
    try FileManager.default.createDirectory(at: fresh, withIntermediateDirectories: false)
    try Data(DiskCache.tagContents.utf8).write(to: fresh.appendingPathComponent("CACHEDIR.TAG"))
    try Data().write(to: fresh.appendingPathComponent(".CACHEDIR.TAG.tmp-1-abc"))
    #expect(DiskCache.isAdoptable(fresh.path))
    try Data("x".utf8).write(to: fresh.appendingPathComponent("notes.txt"))
    #expect(!DiskCache.isAdoptable(fresh.path), "someone else's file is never adopted")
  }

  @Test func processesCreatingOneNewCacheAtOnceAllSucceed() throws {
    // Parallel shards into a fresh --cache-dir: each sees the others' half-made directory.
    for round in 0..<20 {
      let fresh = directory.appendingPathComponent("fresh-\(round)")
      let failures = Locked(0)
      DispatchQueue.concurrentPerform(iterations: 8) { _ in
        do { _ = try DiskCache(directory: fresh.path) } catch { failures.withLock { $0 += 1 } }
      }
      #expect(failures.withLock { $0 } == 0, "round \(round)")
      #expect(DiskCache.isTagged(fresh.path))
    }
  }
}
