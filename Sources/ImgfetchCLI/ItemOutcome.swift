import ImageCodecs
import Thumbnails

/// What happened to one item (a local file, a URL, a Parse object), whatever its kind: one shape for
/// the plain line, the JSON line and the exit code.
public struct ItemOutcome: Sendable {
  /// Why an item failed, as far as the exit code is concerned.
  public enum FailureKind: Sendable, Equatable {
    /// The network or the server (exit 3).
    case network
    /// The file is not a valid image, or is over a limit, or a Parse column holds no file (exit 4).
    case invalidImage
    /// A local file or directory could not be read or written (exit 5).
    case fileSystem
    /// Stopped by Ctrl-C or SIGTERM: not reported per item.
    case cancelled

    /// The exit code of a run whose every item failed this way.
    public var exitCode: ExitCode {
      switch self {
      case .network: .networkError
      case .invalidImage: .invalidImage
      case .fileSystem: .fileSystem
      case .cancelled: .interrupted
      }
    }
  }

  /// The source as given (or `Class/objectId` for a class walk).
  public var source: String
  /// The Parse objectId, for Parse sources.
  public var objectID: String?
  /// Whether the plain line starts with the objectId (an object of a class walk, `--class`, whose
  /// source is not on the command line).
  public var lineStartsWithObjectID = false
  /// The validated file in the cache, for downloaded sources.
  public var cachePath: String?
  /// Whether the cache already held it, for downloaded sources (with `--thumbnails-only`: whether
  /// nothing was downloaded, the thumbnails being current).
  public var cacheHit: Bool?
  /// Whether the original was not kept in the cache (`--thumbnails-only`): there is no `cachePath`,
  /// and when its thumbnails were found current no original was read, so its size and format are unknown.
  public var originalRemoved = false
  /// The original's width as a person sees it: after its EXIF orientation (orientations 5 to 8
  /// swap width and height).
  public var width = 0
  /// The original's height as a person sees it, after its EXIF orientation.
  public var height = 0
  /// The original's width as stored in the file, before any orientation.
  public var storedWidth = 0
  /// The original's height as stored in the file.
  public var storedHeight = 0
  /// `png` or `jpeg`.
  public var format: String?
  /// The original's size in bytes.
  public var bytes: Int64 = 0
  /// The thumbnail, when asked for (the first size's, with several).
  public var thumbnail: ThumbnailResult?
  /// Every size's thumbnail, in the order asked, when several sizes were asked for
  /// (`--thumbnail 64,256,1024`); empty otherwise.
  public var thumbnails: [ThumbnailResult] = []
  /// Why the item was skipped (not an error), such as one of imgfetch's own thumbnails.
  public var skipped: String?
  /// Why the item failed.
  public var failure: (kind: FailureKind, message: String)?
  /// Whether the failure's line on standard error is left to one summary line the command prints
  /// once for many items (a column missing from the objects of a class walk); the JSON object still
  /// carries the `error`.
  public var failureIsSummarised = false

  /// The `error` of an item cut off by Ctrl-C or SIGTERM in its JSON object.
  public static let interruptedMessage = "interrupted"

  /// Whether the item is one of imgfetch's own thumbnails met as a source, skipped without a line.
  public var isOwnThumbnail: Bool { skipped == LocalItem.thumbnailSkipReason && failure == nil }

  /// Creates an outcome for a source.
  /// - Parameters:
  ///   - source: The source as shown.
  ///   - objectID: The Parse objectId, if any.
  public init(source: String, objectID: String? = nil) {
    self.source = source
    self.objectID = objectID
  }

  /// Records what the original's header says: its format and both sizes.
  /// - Parameter header: The header.
  public mutating func record(_ header: ImageHeader) {
    (width, height) = (header.orientedWidth, header.orientedHeight)
    (storedWidth, storedHeight) = (header.width, header.height)
    format = header.format.rawValue
  }

  /// The `--json` line's fields, one schema for every kind of source (documented in the README):
  /// `source`, `objectId` (Parse), then `error` for a failure or `skipped` for a skipped item, or
  /// `cachePath` (downloads, unless `--thumbnails-only` removed the original) and `cacheHit`
  /// (downloads), the original's `width` and `height` as a person sees it
  /// (after its EXIF orientation), `storedWidth` and `storedHeight` as stored, `format` (these five
  /// `null` for an original not read: `--thumbnails-only` found its thumbnails current), `bytes`,
  /// and with a thumbnail `thumbnailPath`, `thumbnailWidth`, `thumbnailHeight`, `reused` (the first
  /// size's) and, with `--placeholder thumbhash`, `thumbhash` (Base64), and with several sizes
  /// `thumbnails`: every one's `path`, `width`, `height`, `reused` (and `thumbhash`).
  public var jsonFields: [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [("source", .string(source))]
    if let objectID { fields.append(("objectId", .string(objectID))) }
    if let failure { return fields + [("error", .string(failure.message))] }
    if let skipped { return fields + [("skipped", .string(skipped))] }
    if let cachePath { fields.append(("cachePath", .string(cachePath))) }
    if let cacheHit { fields.append(("cacheHit", .bool(cacheHit))) }
    // An original not read (--thumbnails-only, its thumbnails current) has no known size.
    let side = { (value: Int) in self.format == nil ? JSONValue.null : .int(value) }
    fields += [
      ("width", side(width)), ("height", side(height)), ("storedWidth", side(storedWidth)),
      ("storedHeight", side(storedHeight)), ("format", format.map { .string($0) } ?? .null),
      ("bytes", .int(Int(bytes))),
    ]
    if let thumbnail {
      fields += [
        ("thumbnailPath", .string(thumbnail.path)), ("thumbnailWidth", .int(thumbnail.width)),
        ("thumbnailHeight", .int(thumbnail.height)), ("reused", .bool(thumbnail.reused)),
      ]
      if let hash = thumbnail.thumbHash { fields.append(("thumbhash", .string(hash.base64))) }
    }
    if !thumbnails.isEmpty {
      let list = thumbnails.map { made in
        JSONObject(
          [
            ("path", .string(made.path)), ("width", .int(made.width)), ("height", .int(made.height)),
            ("reused", .bool(made.reused)),
          ] + (made.thumbHash.map { [("thumbhash", .string($0.base64))] } ?? []))
      }
      fields.append(("thumbnails", .objects(list)))
    }
    return fields
  }

  /// The plain line: the objectId and a tab in a class walk, the valid file (the cached copy, or the
  /// local file itself), then a tab and the
  /// thumbnail's path when there is one (with several sizes, a tab and a path for each, in the
  /// order asked).
  public var line: String {
    let paths = thumbnails.isEmpty ? [thumbnail?.path].compactMap { $0 } : thumbnails.map(\.path)
    let id = lineStartsWithObjectID ? [objectID].compactMap { $0 } : []
    return (id + [cachePath ?? source] + paths).joined(separator: "\t")
  }
}
