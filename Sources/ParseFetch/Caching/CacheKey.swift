import ParseEssentials

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
    fileName = CacheName.entry(parseFileName: name)
  }

  /// The key of a plain URL: its last path component made unique by a hash of the whole URL.
  /// - Parameter url: The file's URL.
  public init(url: String) {
    fileName = CacheName.entry(url: url)
  }

  /// The file name.
  public var description: String { fileName }
}

/// The digest that names hashed entries (one implementation, in ParseEssentials).
typealias SHA256 = ParseEssentials.SHA256
