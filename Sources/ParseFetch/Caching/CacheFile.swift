/// What a file in a cache directory is, decided from its name alone: the one classifier of the
/// cache's files, used by ``CacheKey`` (an entry's name is never anything else), by ``DiskCache``'s
/// `gc`, `clear` and size accounting, by `imgfetch cache` and by the tests.
///
/// | name | kind |
/// |---|---|
/// | `photo.jpg` (a Parse name used raw), `pic+<32 hex>.tmpl` (a hashed one) | ``entry`` |
/// | `<entry>.part` | ``partial(entry:)``: a download not yet validated |
/// | `<entry>.thumb-<W>[x<H>][-cover].(jpg\|png\|webp)`, `<entry>.thumb-<W>x.jpg`, `…thumb-x<H>.jpg` | ``thumbnail(entry:)`` |
/// | `.<name>.tmp-<pid>-<random>` | ``temporary``: an atomic write killed before its rename |
/// | `<entry>.lock` (inside `.locks/`) | ``lock`` |
/// | `CACHEDIR.TAG` | ``tag`` |
/// | anything else (`a+b.jpg`, `Notes.txt`) | ``foreign``: never counted, never removed |
public enum CacheFile: Sendable, Equatable {
  /// A validated cache entry.
  case entry
  /// The download of an entry, not yet validated (`<entry>.part`).
  case partial(entry: String)
  /// A thumbnail made from an entry (`<entry>.thumb-256.jpg`).
  case thumbnail(entry: String)
  /// A hidden temporary file of an atomic write (`.<name>.tmp-<pid>-<random>`).
  case temporary
  /// A per-entry lock file in the `.locks` directory, held while the entry is downloaded and
  /// stored (one left behind by a killed process is removed by `gc` and `clear`).
  case lock
  /// The Cache Directory Tagging Specification's `CACHEDIR.TAG`.
  case tag
  /// Not a file imgfetch makes.
  case foreign

  /// The name of the tag file.
  public static let tagName = "CACHEDIR.TAG"

  /// The name of the directory of lock files inside the cache directory.
  public static let locksDirectoryName = ".locks"

  /// Classifies a name in the cache directory (or, with `inLocks`, in its `.locks` directory).
  /// - Parameters:
  ///   - name: The file name, without a directory.
  ///   - inLocks: Whether the file is in the `.locks` directory.
  public init(fileName name: String, inLocks: Bool = false) {
    if inLocks {
      self = name.hasSuffix(".lock") && Self.isEntryName(String(name.dropLast(5))) ? .lock : .foreign
    } else if name == Self.tagName {
      self = .tag
    } else if Self.isTemporaryName(name) {
      self = .temporary
    } else if name.hasSuffix(".part"), Self.isEntryName(String(name.dropLast(5))) {
      self = .partial(entry: String(name.dropLast(5)))
    } else if let entry = Self.thumbnailEntry(name), Self.isEntryName(entry) {
      self = .thumbnail(entry: entry)
    } else if Self.isEntryName(name) {
      self = .entry
    } else {
      self = .foreign
    }
  }

  /// Whether files of this kind are the cache's own transient files (`gc` removes them when stale).
  public var isTransient: Bool {
    switch self {
    case .partial, .temporary: true
    default: false
    }
  }

  /// Whether `name` is one ``CacheKey`` gives an entry: a Parse file name used as it is (Parse's rule
  /// in lower case, without `+`) or a hashed one (`<slug>+<32 hex>[.<ext>]`), at most 128 bytes, and
  /// not a partial download, thumbnail, temporary file or the tag. Any other name is not the cache's.
  static func isEntryName(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard (1...128).contains(bytes.count), !name.hasSuffix(".part"), thumbnailEntry(name) == nil else { return false }
    return isRawName(bytes) || isHashedName(name)
  }

  /// Parse's rule without upper case (first byte, then the others).
  static let leading = Set("_abcdefghijklmnopqrstuvwxyz0123456789".utf8)
  static let following = leading.union("@. ~-".utf8)

  /// A Parse file name as ``CacheKey`` uses it raw.
  static func isRawName(_ bytes: [UInt8]) -> Bool {
    guard let first = bytes.first, leading.contains(first) else { return false }
    return bytes.allSatisfy(following.contains)
  }

  /// `<slug>+<32 hex>[.<ext>]`, exactly as ``CacheKey`` hashes a name: the slug of `[a-z0-9_-]`, the
  /// hash in lower-case hex, the extension of one to eight lower-case letters and digits.
  static func isHashedName(_ name: String) -> Bool {
    let parts = name.split(separator: "+", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.allSatisfy(slugBytes.contains) else { return false }
    let hash = parts[1].prefix(32)
    guard hash.count == 32, hash.utf8.allSatisfy(hexDigits.contains) else { return false }
    let ext = parts[1].dropFirst(32)
    guard let dot = ext.first else { return true }
    return dot == "." && (2...9).contains(ext.count) && ext.dropFirst().utf8.allSatisfy(extensionBytes.contains)
  }

  static let slugBytes = Set("_abcdefghijklmnopqrstuvwxyz0123456789-".utf8)
  static let hexDigits = Set("0123456789abcdef".utf8)
  static let extensionBytes = Set("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

  /// `.<name>.tmp-<digits>-<letters and digits>`, as `AtomicPublish.temporaryPath(for:)` makes them.
  static func isTemporaryName(_ name: String) -> Bool {
    guard name.hasPrefix("."), let marker = lastRange(of: ".tmp-", in: name),
      marker.lowerBound > name.index(after: name.startIndex)
    else { return false }
    let parts = name[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
    return parts.count == 2 && !parts[0].isEmpty && parts[0].allSatisfy(\.isASCII) && parts[0].allSatisfy(\.isNumber)
      && !parts[1].isEmpty && parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
  }

  /// The extensions of the formats imgfetch writes thumbnails in (Thumbnails'
  /// `ThumbnailFormat.fileExtensions`; ImageFetchTests checks the two agree).
  package static let thumbnailExtensions = ["jpg", "png", "webp"]

  /// The entry of `<entry>.thumb-<W>[x<H>][-cover].(jpg|png|webp)`, or nil when `name` is not of that form.
  static func thumbnailEntry(_ name: String) -> String? {
    guard let marker = lastRange(of: ".thumb-", in: name), let dot = name.lastIndex(of: "."),
      dot > marker.lowerBound, thumbnailExtensions.contains(String(name[name.index(after: dot)...]))
    else { return nil }
    var rest = name[marker.upperBound..<dot]
    if rest.hasSuffix("-cover") { rest = rest.dropLast(6) }
    // `W`, `WxH`, `Wx` or `xH` (Thumbnails' `ThumbnailSize.isLabel`, which ParseFetch cannot import).
    let sides = rest.split(separator: "x", omittingEmptySubsequences: false)
    let digits = { (side: Substring) in !side.isEmpty && side.allSatisfy { $0.isASCII && $0.isNumber } }
    guard (sides.count == 1 && digits(sides[0]))
      || (sides.count == 2 && (digits(sides[0]) || digits(sides[1])) && sides.allSatisfy { $0.isEmpty || digits($0) })
    else { return nil }
    return String(name[..<marker.lowerBound])
  }

  /// The last place `needle` occurs in `name`, compared by characters.
  static func lastRange(of needle: String, in name: String) -> Range<String.Index>? {
    var index = name.endIndex
    while index > name.startIndex {
      index = name.index(before: index)
      if name[index...].hasPrefix(needle) { return index..<name.index(index, offsetBy: needle.count) }
    }
    return nil
  }
}
