import ParseEssentials

/// What a file in a cache directory is, decided from its name alone (by the rules of the package's
/// Foundation-free `CacheName`, which the codec-only executable's warm hit shares), used by ``CacheKey`` (an entry's name is never anything else), by ``DiskCache``'s
/// `gc`, `clear` and size accounting, by `imgfetch cache` and by the tests.
///
/// | name | kind |
/// |---|---|
/// | `photo.jpg`, `pic+<32 hex>.tmpl` | ``entry`` |
/// | `<entry>.part` | ``partial(entry:)``: a download not yet validated |
/// | `<entry>.thumb-<W>[x<H>][-cover].(jpg\|png\|webp)` | ``thumbnail(entry:)`` |
/// | `.<name>.tmp-<pid>-<random>` | ``temporary``: an atomic write killed before its rename |
/// | `<entry>.lock`, `<32 hex>.hint` (inside `.locks/`) | ``lock`` |
/// | `CACHEDIR.TAG` | ``tag`` |
/// | anything else | ``foreign``: never counted, never removed |
public enum CacheFile: Sendable, Equatable {
  /// A validated cache entry.
  case entry
  /// The download of an entry, not yet validated (`<entry>.part`).
  case partial(entry: String)
  /// A thumbnail made from an entry (`<entry>.thumb-256.jpg`).
  case thumbnail(entry: String)
  /// A hidden temporary file of an atomic write (`.<name>.tmp-<pid>-<random>`).
  case temporary
  /// A per-entry lock file in the `.locks` directory, or an object's hint there (a symbolic link
  /// to the entry the object's file column last resolved to).
  case lock
  /// The Cache Directory Tagging Specification's `CACHEDIR.TAG`.
  case tag
  /// Not a file imgfetch makes.
  case foreign

  /// The name of the tag file.
  public static let tagName = CacheName.tagName

  /// Classifies a name in the cache directory (or, with `inLocks`, in its `.locks` directory).
  /// - Parameters:
  ///   - name: The file name, without a directory.
  ///   - inLocks: Whether the file is in the `.locks` directory.
  public init(fileName name: String, inLocks: Bool = false) {
    switch CacheName(fileName: name, inLocks: inLocks) {
    case .entry: self = .entry
    case .partial(let entry): self = .partial(entry: entry)
    case .thumbnail(let entry): self = .thumbnail(entry: entry)
    case .temporary: self = .temporary
    case .lock: self = .lock
    case .tag: self = .tag
    case .foreign: self = .foreign
    }
  }

  /// Whether files of this kind are the cache's own transient files (`gc` removes them when stale).
  public var isTransient: Bool {
    switch self {
    case .partial, .temporary: true
    default: false
    }
  }
}
