import ImageCodecs
import SystemFiles

/// A folder thumbnails are written to instead of next to their originals, mirroring the tree of
/// folders under a source root: with `path` `/srv/thumbs` and `sourceRoot` `~/Pictures`, the thumbnail
/// of `~/Pictures/2024/trip/a.jpg` is `/srv/thumbs/2024/trip/a.jpg.thumb-256.jpg`.
///
/// ```swift
/// var options = ThumbnailOptions(size: .longestSide(256))
/// options.outputDirectory = ThumbnailDirectory(path: "/srv/thumbs", sourceRoot: "photos")
/// ```
///
/// Folders are compared as the system resolves them (`realpath`: symbolic links to folders, `.` and
/// `..` resolved), the source's file name as written: `photos/deep/../a.jpg`, where `photos/deep` is a
/// link to `../elsewhere/deep`, is mirrored as `elsewhere/a.jpg`, never as `photos/a.jpg`. So two
/// different files under the root never share a thumbnail: the mirrored path keeps every real folder
/// and the source's whole file name. (A folder that does not exist is read as written.) A source
/// outside the root is refused (``ThumbnailError/invalidOptions(_:)``) rather than written somewhere
/// else; ``commonRoot(of:)`` gives a root that holds every source of a list. Missing folders are
/// created (mode 0755 less the umask) when a thumbnail is written; reuse and stamps work there as
/// next to the originals.
public struct ThumbnailDirectory: Sendable, Hashable {
  /// The folder thumbnails go under.
  public var path: String
  /// The folder whose tree is mirrored.
  public var sourceRoot: String

  /// Creates an output folder.
  /// - Parameters:
  ///   - path: Where thumbnails go.
  ///   - sourceRoot: The folder whose tree is mirrored; the working directory by default.
  public init(path: String, sourceRoot: String = ".") {
    self.path = path
    self.sourceRoot = sourceRoot
  }

  /// The folder a source's thumbnail goes in: ``path`` plus the source's folder relative to
  /// ``sourceRoot``.
  /// - Parameter source: The source file's path.
  /// - Returns: The folder, without a trailing slash.
  /// - Throws: ``ThumbnailError/invalidOptions(_:)`` when the source is not under the root.
  public func folder(forSource source: String) throws(ThumbnailError) -> String {
    let root = Self.components(ofFolder: sourceRoot)
    var file = Self.components(ofFile: source)
    guard file.count > root.count, Array(file.prefix(root.count)) == root else {
      throw .invalidOptions("\(source) is not under the source root \(sourceRoot) mirrored into \(path)")
    }
    file.removeFirst(root.count)
    file.removeLast()
    let base = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
    return ([base] + file).joined(separator: "/")
  }

  /// The deepest folder that holds every path (their common ancestor, compared by real folders), to
  /// mirror several sources given one by one.
  /// - Parameter paths: Source files.
  /// - Returns: The folder (`/` at worst).
  public static func commonRoot(of paths: [String]) -> String {
    var common: [String]? = nil
    for path in paths {
      let folder = Array(components(ofFile: path).dropLast())
      guard let known = common else {
        common = folder
        continue
      }
      common = Array(zip(known, folder).prefix { $0 == $1 }.map(\.0))
    }
    return "/" + (common ?? []).joined(separator: "/")
  }

  /// A file's components: its folder's real ones (``components(ofFolder:)``), then its name as written.
  static func components(ofFile path: String) -> [String] {
    guard let slash = path.lastIndex(of: "/") else { return components(ofFolder: ".") + [path] }
    let folder = slash == path.startIndex ? "/" : String(path[..<slash])
    return components(ofFolder: folder) + [String(path[path.index(after: slash)...])]
  }

  /// A folder's components, absolute and real (`realpath`); a folder that cannot be resolved (it does
  /// not exist) is made absolute against the working directory and read as written.
  static func components(ofFolder path: String) -> [String] {
    if let real = FileSystem.realPath(path) { return real.split(separator: "/").map(String.init) }
    let full = path.hasPrefix("/") ? path : (FileSystem.currentDirectory() ?? "/") + "/" + path
    var parts: [String] = []
    for part in full.split(separator: "/", omittingEmptySubsequences: true) where part != "." {
      if part == ".." {
        if !parts.isEmpty { parts.removeLast() }
        continue
      }
      parts.append(String(part))
    }
    return parts
  }

  /// Creates `folder` and the folders above it that are missing (mode 0755, less the umask).
  /// - Throws: ``ThumbnailError/write(_:)`` naming the folder that could not be made.
  static func create(_ folder: String) throws(ThumbnailError) {
    do { try Directory.create(folder, permissions: 0o755) } catch {
      throw .write(AtomicFile.WriteError(path: error.path, reason: error.message))
    }
  }
}
