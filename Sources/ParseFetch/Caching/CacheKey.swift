/// The on-disk name of a cache entry, derived from a Parse file name or a URL.
///
/// A Parse file name is used as it is when it follows Parse's rule
/// (`^[_a-zA-Z0-9][a-zA-Z0-9@. ~_-]*$`, at most 128 characters), has no upper-case letter and
/// ``CacheFile`` classifies it as an entry (not a `.part`, thumbnail or temporary name). Any other
/// name is never used raw: it becomes `<slug>+<hash>[.<ext>]`, where the slug is a lower-case,
/// harmless rest of the name and the hash is 128 bits of SHA-256 over the exact UTF-8 bytes.
/// Raw names cannot contain `+`, so the two forms never meet; names that differ only in case
/// or Unicode normalisation get different hashes, also on case-insensitive file systems.
public struct CacheKey: Sendable, Hashable, CustomStringConvertible {
  /// The entry's file name inside the cache directory; never contains `/` or starts with `.`.
  public let fileName: String

  /// The key of a Parse file.
  /// - Parameter name: The file's `name` as stored by Parse.
  public init(parseFileName name: String) {
    fileName = Self.isSafeRaw(name) ? name : Self.hashed(name, domain: "parse-name")
  }

  /// The key of a plain URL: its last path component made unique by a hash of the whole URL.
  /// - Parameter url: The file's URL.
  public init(url: String) {
    let last = url.split(separator: "?").first?.split(separator: "/").last.map(String.init)
    fileName = Self.hashed(last ?? "file", domain: "url", hashing: url)
  }

  /// The file name.
  public var description: String { fileName }

  /// Whether a Parse file name can be an entry's name as it is.
  static func isSafeRaw(_ name: String) -> Bool {
    let bytes = Array(name.utf8)
    guard (1...128).contains(bytes.count), let first = bytes.first, rawLeading.contains(first),
      bytes.allSatisfy(rawFollowing.contains)
    else { return false }
    return CacheFile(fileName: name) == .entry
  }

  /// Parse's rule, without upper case: first byte, then the others.
  private static let rawLeading = Set("_abcdefghijklmnopqrstuvwxyz0123456789".utf8)
  private static let rawFollowing = rawLeading.union("@. ~-".utf8)

  /// `<slug>+<32 hex>[.<ext>]`, made only of `[a-z0-9_+.-]`.
  static func hashed(_ name: String, domain: String, hashing input: String? = nil) -> String {
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
    return CacheFile(fileName: base + ext) == .entry ? base + ext : base
  }
}
