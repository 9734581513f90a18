import SystemFiles
import Thumbnails

/// The operands of a command with every folder operand replaced by the images it holds
/// (``/Thumbnails/ImageFolder``: PNG and JPEG files by extension or content, sorted, hidden names
/// and symbolic links to folders left out, subfolders only with `--recursive`). Files, URLs and
/// Parse objects stay as given, in their place.
struct LocalOperands: Sendable {
  /// One item to work on.
  enum Item: Sendable, Equatable {
    /// An operand as given (a file, a URL, a Parse object).
    case given(String)
    /// A file found in a folder operand.
    case walked(String)
    /// A folder of the walk that could not be listed: `path: cannot list: reason`.
    case unreadable(folder: String, message: String)

    /// The path or operand the item is shown and sharded by.
    var label: String {
      switch self {
      case .given(let text), .walked(let text), .unreadable(let text, _): text
      }
    }

    /// The file's path, for an item that names one (not an unreadable folder).
    var path: String? {
      switch self {
      case .given(let text), .walked(let text): text
      case .unreadable: nil
      }
    }
  }

  /// The items, in the operands' order, each folder's files in walk order.
  var items: [Item] = []
  /// Whether any operand was a folder (then the run is a batch whatever the count).
  var walkedFolder = false

  /// Walks the folder operands.
  /// - Parameters:
  ///   - operands: The operands as given.
  ///   - recursive: `--recursive`.
  ///   - isLocal: Whether an operand names a local path (the default command also takes URLs and
  ///     Parse objects, which are never walked).
  init(_ operands: [String], recursive: Bool, isLocal: (String) -> Bool = { _ in true }) {
    for operand in operands {
      guard isLocal(operand), FileStatus.of(operand)?.kind == .directory else {
        items.append(.given(operand))
        continue
      }
      walkedFolder = true
      let found = ImageFolder.walk(operand, recursive: recursive)
      // An empty result is said once, so an empty run is not a silent one.
      if found.isEmpty {
        Console.error("\(operand): no PNG, JPEG, WebP, GIF, HEIC or AVIF files\(recursive ? "" : " at its top level (-r walks subfolders)")")
      }
      for entry in found {
        switch entry {
        case .image(let path): items.append(.walked(path))
        case .unreadable(let folder, let reason):
          items.append(.unreadable(folder: folder, message: "\(folder): cannot list: \(reason)"))
        }
      }
    }
  }

  /// The operands of a local command (`info`, `verify`, local files) walked.
  /// - Parameter invocation: The command line.
  init(_ invocation: Invocation) {
    self.init(invocation.operands, recursive: invocation.folders.recursive)
  }

  /// The folder whose tree `--output-dir` mirrors: the deepest folder that holds every folder
  /// operand, the folder of every file operand, and the cache directory when a source is downloaded.
  /// With one folder operand that is the folder itself (its files land at their paths below it);
  /// with one file, its folder (the thumbnail lands directly under the output folder); with two
  /// folders `a/photos` and `b/photos`, their common parent (`out/a/photos/...`, `out/b/photos/...`),
  /// so two different sources never share a thumbnail.
  /// - Parameters:
  ///   - operands: The operands as given.
  ///   - cacheDirectory: Where downloads are cached, when the run downloads anything.
  ///   - isLocal: Whether an operand names a local path.
  /// - Returns: The source root.
  static func sourceRoot(of operands: [String], cacheDirectory: String?, isLocal: (String) -> Bool = { _ in true })
    -> String
  {
    // commonRoot takes files: a folder stands as a file inside it.
    var paths = operands.filter(isLocal).map { FileStatus.of($0)?.kind == .directory ? $0 + "/-" : $0 }
    if let cacheDirectory { paths.append(cacheDirectory + "/-") }
    return ThumbnailDirectory.commonRoot(of: paths)
  }

  /// Creates the output folder before any work (mode 0755 less the umask), so that a folder that
  /// cannot be made is one line and exit 5 rather than one failure per item.
  /// - Parameter path: `--output-dir`.
  /// - Returns: Whether it exists now (after printing the reason when not).
  static func createOutputDirectory(_ path: String) -> Bool {
    do { try Directory.create(path, permissions: 0o755) } catch {
      Console.error("cannot use the output folder: \(error)")
      return false
    }
    return true
  }
}
