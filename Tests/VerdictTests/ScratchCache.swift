import Foundation
import ParseFetch

/// A `FileCaching` over a scratch directory for the harness's downloads: an entry is its `.part`
/// renamed, with no flush to disk and no lock (each key is fetched once). What the harness looks at
/// is the validation that decides whether a download may be stored, not the store; `DiskCache`'s
/// two fsyncs per entry would make hundreds of downloads slow on a busy disk.
struct ScratchCache: FileCaching {
  let directory: URL

  init(directory: URL) throws {
    self.directory = directory
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  func cachedFile(for key: CacheKey) -> String? {
    let path = directory.appendingPathComponent(key.fileName).path
    return FileManager.default.fileExists(atPath: path) ? path : nil
  }

  func path(for key: CacheKey) -> String { directory.appendingPathComponent(key.fileName).path }

  func partPath(for key: CacheKey) -> String { directory.appendingPathComponent(key.fileName + ".part").path }

  func store(_ part: String, as key: CacheKey) throws(CacheError) -> String {
    let entry = directory.appendingPathComponent(key.fileName).path
    guard rename(part, entry) == 0 else { throw .store(path: entry, reason: String(cString: strerror(errno))) }
    return entry
  }

  func removeEntry(for key: CacheKey) throws(CacheError) {
    try? FileManager.default.removeItem(atPath: directory.appendingPathComponent(key.fileName).path)
  }

  func lockEntry(_ key: CacheKey) async throws -> any EntryLock { Unlocked() }

  struct Unlocked: EntryLock {
    func unlock() {}
  }
}
