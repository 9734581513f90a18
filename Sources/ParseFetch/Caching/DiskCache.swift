import Foundation
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// Validated files on disk, named by their ``CacheKey``.
///
/// ```swift
/// let cache = try DiskCache(byteLimit: 512 << 20)
/// if let file = cache.cachedFile(for: CacheKey(parseFileName: name)) { … }
/// ```
///
/// An entry appears only by an atomic rename of its fsynced `.part` file, so readers (in this
/// process or another) never see a partial file. Hits touch the entry's access time,
/// which is what the least-recently-used eviction sorts by.
public final class DiskCache: Sendable {
  /// The directory holding the entries.
  public let directory: URL
  /// The most bytes the entries may take; the oldest are evicted after each store.
  public let byteLimit: Int64?

  /// Opens (and creates) a cache directory.
  /// - Parameters:
  ///   - directory: Where to keep entries; ``defaultDirectory(environment:)`` when nil.
  ///   - byteLimit: The budget for entries, or nil for no limit.
  /// - Throws: ``CacheError/directory(path:reason:)`` when it cannot be created.
  public init(directory: URL? = nil, byteLimit: Int64? = nil) throws(CacheError) {
    let directory = directory ?? Self.defaultDirectory()
    self.directory = directory
    self.byteLimit = byteLimit
    do {
      try FileManager.default.createDirectory(
        at: directory.appendingPathComponent(".locks"), withIntermediateDirectories: true)
    } catch {
      throw .directory(path: directory.path, reason: error.localizedDescription)
    }
  }

  /// `$XDG_CACHE_HOME/imgfetch`, else `~/.cache/imgfetch`.
  /// - Parameter environment: The variables to read; the process environment by default.
  /// - Returns: The directory URL.
  public static func defaultDirectory(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> URL {
    if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
      return URL(fileURLWithPath: xdg).appendingPathComponent("imgfetch")
    }
    let home = environment["HOME"] ?? NSHomeDirectory()
    return URL(fileURLWithPath: home).appendingPathComponent(".cache/imgfetch")
  }

  /// Where the entry for `key` is (or would be) stored.
  /// - Parameter key: The entry's key.
  /// - Returns: The entry's path.
  public func url(for key: CacheKey) -> URL { directory.appendingPathComponent(key.fileName) }

  /// Where the download for `key` is written until it is validated.
  /// - Parameter key: The entry's key.
  /// - Returns: The `.part` file's path.
  public func partURL(for key: CacheKey) -> URL {
    directory.appendingPathComponent(key.fileName + ".part")
  }

  /// Looks up an entry without any network access, marking it as recently used.
  /// - Parameter key: The entry's key.
  /// - Returns: The entry's path, or nil on a miss.
  public func cachedFile(for key: CacheKey) -> URL? {
    let url = url(for: key)
    // Only the access time moves: the modification time stays the download's, so thumbnails
    // made from the entry (which compare modification times) remain up to date.
    let (now, omit) = ((1 << 30) - 1, (1 << 30) - 2)  // UTIME_NOW, UTIME_OMIT (macros Swift cannot see)
    var times = [timespec(tv_sec: 0, tv_nsec: now), timespec(tv_sec: 0, tv_nsec: omit)]
    if utimensat(AT_FDCWD, url.path, &times, 0) == 0 { return url }
    // A read-only cache still serves its entries; they just do not move up in the LRU order.
    return errno != ENOENT && access(url.path, R_OK) == 0 ? url : nil
  }

  /// Makes a validated `.part` file the entry for `key`: fsync, rename, fsync the directory,
  /// then evict old entries beyond the byte limit.
  /// - Parameters:
  ///   - part: The complete, validated download.
  ///   - key: The entry's key.
  /// - Returns: The entry's path.
  /// - Throws: ``CacheError/store(path:reason:)``.
  public func store(_ part: URL, as key: CacheKey) throws(CacheError) -> URL {
    let entry = url(for: key)
    do { try AtomicPublish.rename(part.path, to: entry.path) } catch {
      throw .store(path: entry.path, reason: error.message)
    }
    evictIfNeeded(keeping: key)
    return entry
  }

  func lock(_ key: CacheKey) async throws -> FileLock {
    try await FileLock.acquire(lockPath(forFileName: key.fileName))
  }

  func lockPath(forFileName name: String) -> String {
    directory.appendingPathComponent(".locks/\(name).lock").path
  }
}
