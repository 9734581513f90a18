import Thumbnails

/// What happened to one source: where its files are, or why it failed.
struct FetchOutcome: Sendable {
  /// How a failure maps to the process exit code when it is the only item.
  enum FailureKind: Sendable {
    case network
    case invalidImage
    /// Stopped by Ctrl-C or SIGTERM: not reported per item.
    case cancelled
  }

  var source: FetchSource
  var cachePath: String?
  var width = 0
  var height = 0
  var format: String?
  var bytes: Int64 = 0
  var cacheHit = false
  var thumbnail: ThumbnailResult?
  var failure: (kind: FailureKind, message: String)?

  /// The `--json` line.
  var jsonFields: [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [("source", .string(source.label))]
    if let objectID = source.objectID { fields.append(("objectId", .string(objectID))) }
    if let failure {
      fields.append(("error", .string(failure.message)))
      return fields
    }
    fields.append(("cachePath", cachePath.map { .string($0) } ?? .null))
    if let thumbnail {
      fields.append(("thumbnailPath", .string(thumbnail.path)))
      fields.append(("thumbnailWidth", .int(thumbnail.width)))
      fields.append(("thumbnailHeight", .int(thumbnail.height)))
      fields.append(("reused", .bool(thumbnail.reused)))
    }
    fields += [
      ("width", .int(width)), ("height", .int(height)), ("format", format.map { .string($0) } ?? .null),
      ("bytes", .int(Int(bytes))), ("cacheHit", .bool(cacheHit)),
    ]
    return fields
  }

  /// The plain output line: the cached (or local) path, then a tab and the thumbnail's path.
  var line: String {
    [cachePath, thumbnail?.path].compactMap { $0 }.joined(separator: "\t")
  }
}
