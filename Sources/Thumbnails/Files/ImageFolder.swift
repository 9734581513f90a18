import ImageCodecs
import SystemFiles

/// The PNG, JPEG, WebP, GIF, HEIC and AVIF files in a folder, found by a walk a user can predict: for the command line's
/// folder operands (`imgfetch ~/Pictures -r --thumbnail 256`), and for anyone who wants the same list.
///
/// ```swift
/// for entry in ImageFolder.walk("photos", recursive: true) {
///   if case .image(let path) = entry { print(path) }  // photos/2024/a.jpg, photos/b.png, ...
/// }
/// ```
///
/// - A file is an image when its name ends in `.jpg`, `.jpeg`, `.jpe`, `.jfif`, `.png`, `.webp`,
///   `.gif`, `.heic`, `.heif`, `.hif` or `.avif` (any case), or when its first bytes are a PNG,
///   JPEG, WebP, GIF or HEIF signature (an image without an extension).
///   A file named as an image is listed even if it is damaged or unreadable, so the caller reports
///   it; any other file (sidecars, text) is left out without a word.
/// - Names starting with a dot (hidden files and folders, temporary files being written) are left out.
/// - Only regular files are listed: a FIFO, socket or device is never opened. A symbolic link to a
///   regular file is listed under the link's path; a symbolic link to a folder is not followed
///   (no loops, no walking out of the tree). A symbolic link named as an image whose target is
///   missing (a dangling link) or cannot be reached is listed too, so the caller reports it with
///   its reason.
/// - Subfolders are walked only when `recursive` is set; otherwise they are left out.
/// - The order is fixed: depth first, each folder's names sorted by their UTF-8 bytes (as
///   `LC_ALL=C ls` sorts), a subfolder's files at the subfolder's place among its siblings.
/// - A folder that cannot be listed (no permission) is an ``Entry/unreadable(folder:reason:)`` entry at its
///   place, and the walk goes on.
public enum ImageFolder {
  /// One thing a walk found.
  public enum Entry: Sendable, Equatable {
    /// An image file's path: the folder as given, a slash, and the path below it.
    case image(String)
    /// A folder that could not be listed, and the system's reason (`Permission denied`).
    case unreadable(folder: String, reason: String)
  }

  /// The file name extensions taken as images without reading the file (lower case, no dot).
  public static let imageExtensions: Set<String> = [
    "jpg", "jpeg", "jpe", "jfif", "png", "webp", "gif", "heic", "heif", "hif", "avif",
  ]

  /// Walks a folder.
  /// - Parameters:
  ///   - folder: The folder, as given (its paths start with it).
  ///   - recursive: Whether subfolders are walked too.
  /// - Returns: The images and unreadable folders, in walk order.
  public static func walk(_ folder: String, recursive: Bool) -> [Entry] {
    var entries: [Entry] = []
    var base = folder
    while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
    walk(base, recursive: recursive, into: &entries)
    return entries
  }

  private static func walk(_ folder: String, recursive: Bool, into entries: inout [Entry]) {
    let names: [String]
    do { names = try Directory.names(in: folder) } catch {
      entries.append(.unreadable(folder: folder, reason: error.message))
      return
    }
    for name in names.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) where !name.hasPrefix(".") {
      let path = folder == "/" ? "/" + name : folder + "/" + name
      guard let own = try? FileStatus.withoutFollowingLinks(path) else { continue }
      switch own.kind {
      case .directory:
        if recursive { walk(path, recursive: true, into: &entries) }
      case .regular:
        if isImage(path, name: name) { entries.append(.image(path)) }
      case .symbolicLink:
        // Followed to a regular file only: a link to a folder could loop or leave the tree. A link
        // named as an image whose target is missing or unreadable is listed, so it fails with its reason.
        switch FileStatus.of(path)?.kind {
        case .regular: if isImage(path, name: name) { entries.append(.image(path)) }
        case nil: if hasImageExtension(name) { entries.append(.image(path)) }
        default: continue
        }
      default:
        continue
      }
    }
  }

  /// Whether a name ends in one of ``imageExtensions`` (any case).
  static func hasImageExtension(_ name: String) -> Bool {
    guard let dot = name.lastIndex(of: ".") else { return false }
    return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
  }

  /// Whether a regular file is taken as an image: by its name's extension, else by its first bytes.
  /// - Parameters:
  ///   - path: The file.
  ///   - name: Its name.
  /// - Returns: Whether it is listed.
  static func isImage(_ path: String, name: String) -> Bool {
    if hasImageExtension(name) { return true }
    guard let head = try? ReadableFile(path: path).read(count: 12, at: 0) else { return false }
    return ImageFormat(sniffing: head).map(\.isDecodable) ?? false
  }
}
