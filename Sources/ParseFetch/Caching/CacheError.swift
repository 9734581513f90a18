/// Why the disk cache could not do its part.
public enum CacheError: Error, Sendable, CustomStringConvertible {
  /// The cache directory cannot be created or used.
  case directory(path: String, reason: String)
  /// The downloaded file failed the caller's validation; it was deleted.
  case validationFailed(CacheKey, underlying: any Error)
  /// The validated download could not be made a cache entry (fsync or rename failed).
  case store(path: String, reason: String)
  /// A file in the cache could not be removed.
  case remove(path: String, reason: String)
  /// The directory holds other files and no `CACHEDIR.TAG`: imgfetch did not make it (only an empty
  /// directory is adopted), and will neither store into it nor remove anything from it.
  case notACache(path: String)
  /// The directory holds another program's `CACHEDIR.TAG` (the specification's signature without
  /// imgfetch's comment): it is that program's cache, never imgfetch's.
  case anotherProgramsCache(path: String)
  /// The cache directory does not exist (and was not to be created).
  case missing(path: String)

  /// One sentence that says what failed and what to do.
  public var description: String {
    switch self {
    case .directory(let path, let reason):
      "cannot use the cache directory \(path) (\(reason)); choose another or fix its permissions"
    case .validationFailed(let key, let underlying):
      "the download of \(key) is not a valid file and was deleted: \(underlying)"
    case .store(let path, let reason):
      "cannot store \(path) in the cache (\(reason)); check free space and permissions"
    case .remove(let path, let reason):
      "cannot remove \(path) from the cache (\(reason)); check its permissions"
    case .notACache(let path):
      "\(path) is not an imgfetch cache (no CACHEDIR.TAG, and it holds other files); choose another cache directory"
    case .anotherProgramsCache(let path):
      "\(path) is not an imgfetch cache (its CACHEDIR.TAG is another program's); choose another cache directory"
    case .missing(let path):
      "no cache at \(path)"
    }
  }
}
