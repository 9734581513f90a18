import FoundationEssentials

/// The names of a cache directory's files, decided from the name alone: the one home of the rules
/// behind ParseFetch's `CacheFile` (the classifier) and `CacheKey` (an entry's name), shared with
/// the codec-only executable's warm hit, which must find the same entry without Foundation.
package enum CacheName: Sendable, Equatable {
  /// A validated cache entry.
  case entry
  /// The download of an entry, not yet validated (`<entry>.part`).
  case partial(entry: String)
  /// A thumbnail made from an entry (`<entry>.thumb-256.jpg`).
  case thumbnail(entry: String)
  /// A hidden temporary file of an atomic write (`.<name>.tmp-<pid>-<random>`).
  case temporary
  /// A per-entry lock file, or an object's hint, in the `.locks` directory.
  case lock
  /// The Cache Directory Tagging Specification's `CACHEDIR.TAG`.
  case tag
  /// Not a file imgfetch makes.
  case foreign

  /// The name of the tag file.
  package static let tagName = "CACHEDIR.TAG"

  /// Classifies a name in the cache directory (or, with `inLocks`, in its `.locks` directory).
  /// - Parameters:
  ///   - name: The file name, without a directory.
  ///   - inLocks: Whether the file is in the `.locks` directory.
  package init(fileName name: String, inLocks: Bool = false) {
    if inLocks {
      let isLock = name.hasSuffix(".lock") && Self.isEntryName(String(name.dropLast(5)))
      self = isLock || Self.isHintName(name) ? .lock : .foreign
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

  /// `<32 lower-case hex>.hint`: an object's hint in `.locks` (CacheLookup.hintPath), kept with
  /// the lock files.
  package static func isHintName(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    return bytes.count == 37 && name.hasSuffix(".hint")
      && bytes[..<32].allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
  }

  /// Whether `name` can be an entry: made of the characters an entry's key uses (Parse's rule in
  /// lower case, and `+` of hashed names), at most 128 bytes, and not a partial download, thumbnail,
  /// temporary file or the tag.
  package static func isEntryName(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard (1...128).contains(bytes.count), let first = bytes.first, leading.contains(first),
      bytes.allSatisfy(following.contains)
    else { return false }
    return !name.hasSuffix(".part") && thumbnailEntry(name) == nil
  }

  /// Parse's rule without upper case (first byte, then the others), plus `+` for hashed names.
  static let leading = Set("_abcdefghijklmnopqrstuvwxyz0123456789".utf8)
  static let following = leading.union("@. ~-+".utf8)

  /// `.<name>.tmp-<digits>-<letters and digits>`, as `AtomicPublish.temporaryPath(for:)` makes them.
  package static func isTemporaryName(_ name: String) -> Bool {
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
  package static func thumbnailEntry(_ name: String) -> String? {
    guard let marker = lastRange(of: ".thumb-", in: name), let dot = name.lastIndex(of: "."),
      dot > marker.lowerBound, thumbnailExtensions.contains(String(name[name.index(after: dot)...]))
    else { return nil }
    var rest = name[marker.upperBound..<dot]
    if rest.hasSuffix("-cover") { rest = rest.dropLast(6) }
    let sides = rest.split(separator: "x", omittingEmptySubsequences: false)
    guard (1...2).contains(sides.count),
      sides.allSatisfy({ side in !side.isEmpty && side.allSatisfy { $0.isASCII && $0.isNumber } })
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

  /// The entry name of a Parse file (ParseFetch's `CacheKey(parseFileName:)`): the name as it is
  /// when it follows Parse's rule (`^[_a-zA-Z0-9][a-zA-Z0-9@. ~_-]*$`, at most 128 characters),
  /// has no upper-case letter and classifies as an entry; else `<slug>+<hash>[.<ext>]`.
  /// - Parameter name: The file's `name` as stored by Parse.
  /// - Returns: The entry's file name.
  package static func entry(parseFileName name: String) -> String {
    isSafeRaw(name) ? name : hashed(name, domain: "parse-name")
  }

  /// The entry name of a plain URL (ParseFetch's `CacheKey(url:)`): its last path component made
  /// unique by a hash of the whole URL.
  /// - Parameter url: The file's URL.
  /// - Returns: The entry's file name.
  package static func entry(url: String) -> String {
    let last = url.split(separator: "?").first?.split(separator: "/").last.map(String.init)
    return hashed(last ?? "file", domain: "url", hashing: url)
  }

  /// Whether a Parse file name can be an entry's name as it is.
  package static func isSafeRaw(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard (1...128).contains(bytes.count), let first = bytes.first, rawLeading.contains(first),
      bytes.allSatisfy(rawFollowing.contains)
    else { return false }
    return CacheName(fileName: name) == .entry
  }

  /// Parse's rule, without upper case: first byte, then the others.
  private static let rawLeading = Set("_abcdefghijklmnopqrstuvwxyz0123456789".utf8)
  private static let rawFollowing = rawLeading.union("@. ~-".utf8)

  /// `<slug>+<32 hex>[.<ext>]`, made only of `[a-z0-9_+.-]`.
  package static func hashed(_ name: String, domain: String, hashing input: String? = nil) -> String {
    let digest = SHA256.hex(Array("\(domain)\0\(input ?? name)".utf8)).prefix(32)
    let lower = name.lowercased()
    var stem = Substring(lower)
    var ext = ""
    if let dot = lower.lastIndex(of: "."), lower.index(after: dot) < lower.endIndex {
      let candidate = lower[lower.index(after: dot)...]
      let plain = candidate.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
      // `.part` and `.tmp` would make the entry look like the cache's own transient files.
      if candidate.count <= 8, plain, candidate != "part", candidate != "tmp" {
        ext = "." + candidate
        stem = lower[..<dot]
      }
    }
    var slug = ""
    for char in stem.unicodeScalars {
      if char.isASCII, rawLeading.contains(UInt8(char.value)) || char == "-" {
        slug.unicodeScalars.append(char)
      } else if !slug.hasSuffix("_") {
        slug += "_"
      }
      if slug.count >= 48 { break }
    }
    let base = (slug.isEmpty ? "file" : slug) + "+" + digest
    // The classifier has the last word: an entry's name never reads as another kind of file.
    return CacheName(fileName: base + ext) == .entry ? base + ext : base
  }
}
