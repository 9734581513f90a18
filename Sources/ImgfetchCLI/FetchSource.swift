import FoundationEssentials
import ParseFetch

/// One thing to fetch, as named on the command line or found by iterating a Parse class.
enum FetchSource: Sendable {
  /// A file on this machine: validated (and thumbnailed) where it is, never copied into the cache.
  case local(String)
  /// An http(s) URL.
  case url(URL)
  /// A Parse object whose file column is looked up first.
  case object(ParseObjectReference)
  /// A Parse object whose file column is already known (class iteration), or the reason it is not usable.
  case objectFile(ParseObjectReference, Result<ParseFile, ParseError>)
  /// A folder met while walking a folder SOURCE that could not be listed, and the message saying why.
  case unreadableFolder(String, String)

  /// Reads a SOURCE argument, classified as ``SourceKind`` does for every command.
  init(argument: String) throws(UsageError) {
    switch SourceKind(argument: argument) {
    case .url:
      guard let url = URL(string: argument) else { throw UsageError("\(argument) is not a valid URL") }
      self = .url(url)
    case .object(let className, let objectID):
      self = .object(ParseObjectReference(className: className, objectID: objectID))
    case .local:
      self = .local(argument)
    }
  }

  /// How the source is shown in output and errors.
  var label: String {
    switch self {
    case .local(let path), .unreadableFolder(let path, _): path
    case .url(let url): url.absoluteString
    case .object(let reference), .objectFile(let reference, _): reference.description
    }
  }

  /// The Parse objectId, when the source is a Parse object.
  var objectID: String? {
    switch self {
    case .object(let reference), .objectFile(let reference, _): reference.objectID
    default: nil
    }
  }

  /// The key `--shard` hashes: the objectId for Parse objects, else the argument.
  var shardKey: String { objectID ?? label }

  /// The local file's path, for a local source.
  var localPath: String? {
    if case .local(let path) = self { return path }
    return nil
  }

  /// Whether the source is downloaded into the cache (a URL or a Parse object).
  var isDownload: Bool {
    switch self {
    case .local, .unreadableFolder: false
    case .url, .object, .objectFile: true
    }
  }

  /// Whether fetching this source needs a Parse Server.
  var needsParse: Bool {
    if case .object = self { return true }
    return false
  }
}
