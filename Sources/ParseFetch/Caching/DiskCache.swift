import FoundationEssentials
import Synchronization
import SystemFiles

/// Validated files on disk, named by their ``CacheKey``.
///
/// ```swift
/// let cache = try DiskCache(byteLimit: 512 << 20)  // entries and thumbnails: 512 MiB at most
/// if let file = cache.cachedFile(for: CacheKey(parseFileName: name)) { … }
/// ```
///
/// An entry appears only by an atomic rename of its fsynced `.part` file, so readers (in this
/// process or another) never see a partial file. Hits touch the entry's access time,
/// which is what the least-recently-used eviction sorts by.
public final class DiskCache: Sendable {
  /// The directory holding the entries: an absolute path without a trailing slash.
  public let directory: String
  /// The most bytes the entries and their thumbnails may take; the least recently used are evicted
  /// when a store passes it (DiskCache+Eviction).
  public let byteLimit: Int64?
  /// What entries and thumbnails took at the last scan plus what was stored since; nil before the
  /// first scan.
  let runningTotal = Mutex<Int64?>(nil)

  /// Opens (and creates) a cache directory.
  ///
  /// A directory imgfetch creates gets a `CACHEDIR.TAG` (the Cache Directory Tagging
  /// Specification's, so backup tools skip it, with a comment naming imgfetch), and only directories
  /// tagged as imgfetch's are used. An existing directory without the tag is adopted (tagged) only
  /// when it is empty; any other directory is refused, whatever its files are named, so a mistyped
  /// `--cache-dir ~/Pictures` or another tool's cache (many keep a `.locks` folder, and some a
  /// `CACHEDIR.TAG` of their own) can never be cleared, collected or evicted.
  /// - Parameters:
  ///   - directory: The path of the directory that keeps the entries (a relative one is taken
  ///     from the current directory); ``defaultDirectory(environment:)`` when nil.
  ///   - byteLimit: The budget for entries and their thumbnails, in bytes, or nil for no limit.
  ///   - creating: Whether to create a missing directory (the default); when false a missing
  ///     directory throws ``CacheError/missing(path:)`` and nothing is created.
  /// - Throws: ``CacheError/directory(path:reason:)`` when it cannot be created or tagged,
  ///   ``CacheError/notACache(path:)`` for a directory of other files,
  ///   ``CacheError/anotherProgramsCache(path:)`` for one tagged by another program,
  ///   ``CacheError/missing(path:)``.
  public init(directory: String? = nil, byteLimit: Int64? = nil, creating: Bool = true) throws(CacheError) {
    let path = Self.absolute(directory ?? Self.defaultDirectory())
    self.directory = path
    self.byteLimit = byteLimit
    if !creating && FileStatus.of(path) == nil { throw .missing(path: path) }
    do {
      try Directory.create(path)
      if !Self.isTagged(path) {
        if Self.hasForeignTag(path) { throw CacheError.anotherProgramsCache(path: path) }
        // Another process creating the same cache may have published its tag since the first look.
        guard Self.isAdoptable(path) || Self.isTagged(path) else { throw CacheError.notACache(path: path) }
        // Not flushed: a tag lost to a power failure is written again, since an empty directory is
        // adopted (and the fsyncs cost a first run milliseconds).
        if !Self.isTagged(path) {
          try AtomicPublish.write(
            Array(Self.tagContents.utf8), to: "\(path)/\(CacheFile.tagName)", flushesToDisk: false)
        }
      }
      // A lock file makes it again when `clear` has removed it.
      if creating { try Directory.create(file(CacheFile.locksDirectoryName)) }
    } catch let error as CacheError {
      throw error
    } catch let error as SystemError {
      throw .directory(path: path, reason: error.message)
    } catch {
      throw .directory(path: path, reason: "\(error)")
    }
  }

  /// The tag's signature line, which the specification requires as the file's first bytes.
  public static let tagSignature = "Signature: 8a477f597d28d172789f06886806bc55"

  /// The whole tag file: the signature and a comment saying whose cache it is.
  static let tagContents =
    "\(tagSignature)\n\(tagOwnerLine) (its download cache).\n"
    + "# For information about cache directory tags, see: https://bford.info/cachedir/\n"

  /// The line of the tag that says the cache is imgfetch's; other programs' tags lack it.
  static let tagOwnerLine = "# This file is a cache directory tag created by imgfetch"

  /// Whether `path` holds imgfetch's `CACHEDIR.TAG`: the signature, then the comment naming imgfetch.
  /// - Parameter path: The directory.
  /// - Returns: True for a directory tagged as imgfetch's cache.
  public static func isTagged(_ path: String) -> Bool {
    let expected = Array("\(tagSignature)\n\(tagOwnerLine)".utf8)
    let tag = try? ReadableFile(path: "\(path)/\(CacheFile.tagName)").read(count: expected.count, at: 0)
    return tag == expected
  }

  /// Whether `path` holds a `CACHEDIR.TAG` that is not imgfetch's (another program's cache).
  static func hasForeignTag(_ path: String) -> Bool {
    guard let status = try? FileStatus.withoutFollowingLinks("\(path)/\(CacheFile.tagName)") else { return false }
    return status.kind != .regular || !isTagged(path)
  }

  /// Empty, or holding only what a process creating this cache at this moment makes (parallel
  /// shards into a new directory): the tag (imgfetch's, checked by the caller), its temporary file,
  /// and an empty `.locks` directory. Anything else, however its name reads, is someone else's.
  static func isAdoptable(_ path: String) -> Bool {
    guard let names = try? Directory.names(in: path) else { return false }
    return names.allSatisfy { name in
      if name == CacheFile.tagName { return true }
      if name == CacheFile.locksDirectoryName {
        let locks = "\(path)/\(name)"
        return (try? FileStatus.withoutFollowingLinks(locks))?.kind == .directory
          && (try? Directory.names(in: locks))?.isEmpty == true
      }
      return name.hasPrefix(".\(CacheFile.tagName).tmp-") && CacheFile(fileName: name) == .temporary
    }
  }

  /// `$XDG_CACHE_HOME/imgfetch` (when it is absolute), else `~/.cache/imgfetch`.
  /// - Parameter environment: The variables to read; the process environment by default.
  /// - Returns: The directory's path.
  public static func defaultDirectory(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return absolute(xdg) + "/imgfetch" }
    let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? FileSystem.homeDirectory() ?? "/"
    return absolute(home) + "/.cache/imgfetch"
  }

  /// `path` made absolute against the current directory, without trailing slashes, so that the
  /// paths the cache hands out stay right if the process changes directory.
  static func absolute(_ path: String) -> String {
    var path = path.hasPrefix("/") ? path : (FileSystem.currentDirectory() ?? ".") + "/" + path
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    return path
  }

  /// Where the entry for `key` is (or would be) stored.
  /// - Parameter key: The entry's key.
  /// - Returns: The entry's path.
  public func path(for key: CacheKey) -> String { file(key.fileName) }

  /// Where the download for `key` is written until it is validated.
  /// - Parameter key: The entry's key.
  /// - Returns: The `.part` file's path.
  public func partPath(for key: CacheKey) -> String { file(key.fileName + ".part") }

  /// The path of the file `name` in the directory.
  func file(_ name: String) -> String { directory == "/" ? "/" + name : directory + "/" + name }

  /// Looks up an entry without any network access, marking it as recently used. Only a regular file
  /// is an entry: a symbolic link planted at its name (in a shared cache) is a miss, and the download
  /// that follows replaces the link, never what it points to.
  /// - Parameter key: The entry's key.
  /// - Returns: The entry's path, or nil on a miss.
  public func cachedFile(for key: CacheKey) -> String? {
    let path = path(for: key)
    guard (try? FileStatus.withoutFollowingLinks(path))?.kind == .regular else { return nil }
    // Only the access time moves: the modification time stays the download's, so thumbnails made
    // from the entry (which compare modification times) remain up to date.
    do { try FileSystem.markAccessed(path) } catch {
      // A read-only cache still serves its entries; they just do not move up in the LRU order.
      return !error.isMissingFile && FileSystem.isReadable(path) ? path : nil
    }
    return path
  }

  /// Makes a validated `.part` file the entry for `key`: fsync, rename, fsync the directory,
  /// then evict the least recently used entries when the budget is passed (never this one).
  /// - Parameters:
  ///   - part: The complete, validated download.
  ///   - key: The entry's key.
  /// - Returns: The entry's path.
  /// - Throws: ``CacheError/store(path:reason:)``.
  public func store(_ part: String, as key: CacheKey) throws(CacheError) -> String {
    let entry = path(for: key)
    let size = (try? FileStatus.withoutFollowingLinks(part)).map { Int64($0.size) } ?? 0
    do { try AtomicPublish.rename(part, to: entry) } catch {
      throw .store(path: entry, reason: error.message)
    }
    accountForStore(of: size, keeping: key.fileName)
    return entry
  }

  /// Waits for the entry's lock, polling so the wait stays cancellable.
  /// - Parameter key: The entry's key.
  /// - Returns: The held lock; releasing it removes its file.
  /// - Throws: ``CacheError/directory(path:reason:)`` when the lock file cannot be made, or
  ///   `CancellationError`.
  func lock(_ key: CacheKey) async throws -> FileLock {
    let path = lockPath(forFileName: key.fileName)
    while true {
      do {
        if let lock = try FileLock.tryAcquire(path) { return lock }
      } catch {
        throw CacheError.directory(path: path, reason: error.message)
      }
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  func lockPath(forFileName name: String) -> String {
    file("\(CacheFile.locksDirectoryName)/\(name).lock")
  }
}
