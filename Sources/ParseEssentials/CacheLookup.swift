import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// Where the cache is and how a hit is looked up in it, without Foundation: the one home of
/// ParseFetch's `DiskCache` paths, tag check and hit lookup, which the codec-only executable's
/// warm hit shares.
package enum CacheLookup {
  /// The tag's signature line, which the Cache Directory Tagging Specification requires as the
  /// file's first bytes.
  package static let tagSignature = "Signature: 8a477f597d28d172789f06886806bc55"

  /// `$XDG_CACHE_HOME/imgfetch` (when absolute), else `$HOME/.cache/imgfetch`.
  /// - Parameters:
  ///   - environment: Reads one variable.
  ///   - home: The home directory when `HOME` is unset.
  /// - Returns: The directory's path.
  package static func defaultDirectory(environment: (String) -> String?, home: () -> String) -> String {
    if let xdg = environment("XDG_CACHE_HOME"), xdg.hasPrefix("/") {
      return absolute(xdg) + "/imgfetch"
    }
    return absolute(environment("HOME") ?? home()) + "/.cache/imgfetch"
  }

  /// `path` made absolute against the current directory, without trailing slashes, so that the
  /// paths the cache hands out stay right if the process changes directory.
  package static func absolute(_ path: String) -> String {
    var path = path.hasPrefix("/") ? path : currentDirectory() + "/" + path
    while path.count > 1, path.hasSuffix("/") { path.removeLast() }
    return path
  }

  /// The working directory (`getcwd`), or `.` when it cannot be read.
  static func currentDirectory() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return "." }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether `path` holds a `CACHEDIR.TAG` that starts with the signature.
  /// - Parameter path: The directory.
  /// - Returns: True for a tagged directory.
  package static func isTagged(_ path: String) -> Bool {
    let tag = try? ReadableFile(path: "\(path)/\(CacheName.tagName)").read(count: tagSignature.utf8.count, at: 0)
    return tag == Array(tagSignature.utf8)
  }

  /// The path of the file `name` in the cache directory `directory` (absolute, no trailing slash).
  package static func file(_ name: String, in directory: String) -> String {
    directory == "/" ? "/" + name : directory + "/" + name
  }

  /// Looks up an entry without any network access, marking it as recently used.
  /// - Parameter path: The entry's path.
  /// - Returns: The path, or nil on a miss.
  package static func hit(_ path: String) -> String? {
    // Only the access time moves: the modification time stays the download's, so thumbnails
    // made from the entry (which compare modification times) remain up to date.
    let (now, omit) = ((1 << 30) - 1, (1 << 30) - 2)  // UTIME_NOW, UTIME_OMIT (macros Swift cannot see)
    var times = [timespec(tv_sec: 0, tv_nsec: now), timespec(tv_sec: 0, tv_nsec: omit)]
    if utimensat(AT_FDCWD, path, &times, 0) == 0 { return path }
    // A read-only cache still serves its entries; they just do not move up in the LRU order.
    return errno != ENOENT && access(path, R_OK) == 0 ? path : nil
  }

  /// An existing cache's directory, as `DiskCache` opens it, creating nothing: nil when the
  /// directory is missing, untagged or without its `.locks` directory (the full path then opens,
  /// adopts or creates it).
  /// - Parameters:
  ///   - directory: The cache directory as given (`--cache-dir`), or nil for the default.
  ///   - environment: Reads one variable (for the default directory).
  /// - Returns: The absolute path.
  package static func existingCache(_ directory: String?, environment: (String) -> String?) -> String? {
    guard let path = directory.map(absolute) ?? defaultDirectoryWithoutLookup(environment: environment),
      FileStatus.of(path)?.kind == .directory, isTagged(path),
      FileStatus.of(file(".locks", in: path))?.kind == .directory
    else { return nil }
    return path
  }

  /// The entry of a Parse file in an existing cache (``existingCache(_:environment:)``), looked up
  /// as `DiskCache` does (``hit(_:)``).
  /// - Parameters:
  ///   - directory: The cache directory as given (`--cache-dir`), or nil for the default.
  ///   - fileName: The entry's name (``CacheName/entry(parseFileName:)``).
  ///   - environment: Reads one variable (for the default directory).
  /// - Returns: The entry's path on a hit.
  package static func existingEntry(
    in directory: String?, named fileName: String, environment: (String) -> String?
  ) -> String? {
    existingCache(directory, environment: environment).flatMap { hit(file(fileName, in: $0)) }
  }

  // MARK: Object hints

  /// Where the hint of one object's file column is: `.locks/<32 hex>.hint` in the cache, the hex
  /// being SHA-256 of the server, the object and the column. The hint is a symbolic link to the
  /// entry's name, made when the full path resolved that object's file; the codec-only executable
  /// tries a warm hit itself only when a hint names an entry that is there, and otherwise hands the
  /// run to the full path at once, so that a cold fetch does not load libcurl in two processes.
  /// The server is asked every time: a hint only says whether a hit is likely.
  /// - Parameters:
  ///   - cache: The cache directory (absolute).
  ///   - server: The server URL as text.
  ///   - source: `Class/objectId`.
  ///   - column: The file column.
  /// - Returns: The hint's path.
  package static func hintPath(cache: String, server: String, source: String, column: String) -> String {
    let digest = SHA256.hex(Array("object-hint\0\(server)\0\(source)\0\(column)".utf8)).prefix(32)
    return file(".locks/\(digest).hint", in: cache)
  }

  /// The entry a hint names, when that entry is in the cache (without touching its access time).
  /// - Parameter hint: The hint's path (``hintPath(cache:server:source:column:)``).
  /// - Returns: The entry's name, or nil.
  package static func hintedEntry(_ hint: String, in cache: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 256)
    let length = readlink(hint, &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    let name = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard CacheName(fileName: name) == .entry, FileStatus.of(file(name, in: cache))?.kind == .regular else {
      return nil
    }
    return name
  }

  /// Makes (or replaces) a hint naming `entry`; failures are ignored (a missing hint only means
  /// the next hit is served by the full path, which makes it then).
  /// - Parameters:
  ///   - hint: The hint's path.
  ///   - entry: The entry's name.
  package static func writeHint(_ hint: String, entry: String) {
    var buffer = [CChar](repeating: 0, count: 256)
    if readlink(hint, &buffer, buffer.count - 1) == entry.utf8.count,
      String(decoding: buffer.prefix(entry.utf8.count).map { UInt8(bitPattern: $0) }, as: UTF8.self) == entry
    {
      return
    }
    let temporary = hint + ".tmp-\(getpid())"
    unlink(temporary)
    guard symlink(entry, temporary) == 0 else { return }
    if rename(temporary, hint) != 0 { unlink(temporary) }
  }

  /// The default directory when `HOME` or `XDG_CACHE_HOME` names it (nil otherwise: finding the
  /// home directory of the user is left to the full path).
  static func defaultDirectoryWithoutLookup(environment: (String) -> String?) -> String? {
    let xdg = environment("XDG_CACHE_HOME")
    guard xdg?.hasPrefix("/") == true || environment("HOME") != nil else { return nil }
    return defaultDirectory(environment: environment, home: { "/" })
  }
}
