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

  /// The entry of a Parse file in an existing cache, looked up as `DiskCache` does, creating
  /// nothing: nil when the directory is missing, untagged or without its `.locks` directory (the
  /// full path then opens, adopts or creates it), or when the entry is not there.
  /// - Parameters:
  ///   - directory: The cache directory as given (`--cache-dir`), or nil for the default.
  ///   - fileName: The entry's name (``CacheName/entry(parseFileName:)``).
  ///   - environment: Reads one variable (for the default directory).
  /// - Returns: The entry's path on a hit.
  package static func existingEntry(
    in directory: String?, named fileName: String, environment: (String) -> String?
  ) -> String? {
    guard let path = directory.map(absolute) ?? defaultDirectoryWithoutLookup(environment: environment),
      FileStatus.of(path)?.kind == .directory, isTagged(path),
      FileStatus.of(file(".locks", in: path))?.kind == .directory
    else { return nil }
    return hit(file(fileName, in: path))
  }

  /// The default directory when `HOME` or `XDG_CACHE_HOME` names it (nil otherwise: finding the
  /// home directory of the user is left to the full path).
  static func defaultDirectoryWithoutLookup(environment: (String) -> String?) -> String? {
    let xdg = environment("XDG_CACHE_HOME")
    guard xdg?.hasPrefix("/") == true || environment("HOME") != nil else { return nil }
    return defaultDirectory(environment: environment, home: { "/" })
  }
}
