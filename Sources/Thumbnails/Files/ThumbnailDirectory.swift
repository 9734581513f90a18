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
/// Paths are compared as written (made absolute against the working directory, `.` and `..` taken
/// away), not through symbolic links. Two different source paths under the root never share a
/// thumbnail: the mirrored path keeps every folder and the source's whole file name. A source
/// outside the root is refused (``ThumbnailError/invalidOptions(_:)``) rather than written somewhere
/// else; ``commonRoot(of:)`` gives a root that holds every source of a list. Missing folders are
/// created (mode 0777 less the umask) when a thumbnail is written; reuse and stamps work there as
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
    let root = Self.components(of: sourceRoot)
    var file = Self.components(of: source)
    guard file.count > root.count, Array(file.prefix(root.count)) == root else {
      throw .invalidOptions("\(source) is not under the source root \(sourceRoot) mirrored into \(path)")
    }
    file.removeFirst(root.count)
    file.removeLast()
    let base = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
    return ([base] + file).joined(separator: "/")
  }

  /// The deepest folder that holds every path (their common ancestor, compared as written), to
  /// mirror several sources given one by one.
  /// - Parameter paths: Source files.
  /// - Returns: The folder (`/` at worst).
  public static func commonRoot(of paths: [String]) -> String {
    var common: [String]? = nil
    for path in paths {
      let folder = Array(components(of: path).dropLast())
      guard let known = common else {
        common = folder
        continue
      }
      common = Array(zip(known, folder).prefix { $0 == $1 }.map(\.0))
    }
    return "/" + (common ?? []).joined(separator: "/")
  }

  /// The path's components, absolute, without `.`, `..` or empty ones.
  static func components(of path: String) -> [String] {
    var full = path
    if !path.hasPrefix("/") {
      full = (FileSystem.currentDirectory() ?? "/") + "/" + path
    }
    var parts: [String] = []
    for part in full.split(separator: "/", omittingEmptySubsequences: true) {
      if part == "." { continue }
      if part == ".." {
        if !parts.isEmpty { parts.removeLast() }
        continue
      }
      parts.append(String(part))
    }
    return parts
  }

  /// Creates `folder` and the folders above it that are missing.
  /// - Throws: ``ThumbnailError/write(_:)`` naming the folder that could not be made.
  static func create(_ folder: String) throws(ThumbnailError) {
    do {
      try Directory.create(folder)
    } catch {
      throw .invalidOptions("cannot create the thumbnail folder \(error.path): \(error.message)")
    }
  }

}
