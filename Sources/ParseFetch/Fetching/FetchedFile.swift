import FoundationEssentials

/// A cache entry handed to a caller, with the validation result when this fetch validated it.
public struct FetchedFile<Value: Sendable>: Sendable {
  /// The key the entry is stored under.
  public var key: CacheKey
  /// The entry's path in the cache directory (a local file is a `String` path in every module).
  public var path: String
  /// What the validation returned (such as the decoded image) when the file was downloaded
  /// and validated by this fetch or a transfer it shared; nil on a cache hit.
  public var value: Value?
  /// Whether the entry was already in the cache, so no request was made.
  public var isCacheHit: Bool
  /// The entry's size in bytes.
  public var byteCount: Int64

  /// Creates a description of a cache entry (what ``FileFetcher/fetch(_:key:headers:headersOrigin:validator:progress:)``
  /// returns; also for a caller that reports an entry it did not fetch).
  /// - Parameters:
  ///   - key: The entry's key.
  ///   - path: The entry's path.
  ///   - value: The validation's result, if this fetch validated it.
  ///   - isCacheHit: Whether no request was made.
  ///   - byteCount: The entry's size in bytes.
  public init(key: CacheKey, path: String, value: Value?, isCacheHit: Bool, byteCount: Int64) {
    self.key = key
    self.path = path
    self.value = value
    self.isCacheHit = isCacheHit
    self.byteCount = byteCount
  }
}
