public import ImageCodecs

/// A thumbnail file that was written or reused.
public struct ThumbnailResult: Sendable, Equatable {
  /// The source image's path (`nil` when made from bytes in memory).
  public let source: String?
  /// The thumbnail file's path.
  public let path: String
  /// The thumbnail's width in pixels (upright).
  public let width: Int
  /// The thumbnail's height in pixels (upright).
  public let height: Int
  /// The thumbnail's file format.
  public let format: ImageFormat
  /// Whether an existing, up-to-date thumbnail was reused instead of being made again.
  public let reused: Bool
  /// Why the source's colour profile was not used, when it was not (one line for the user, such as
  /// `ICC profile ignored: truncated (1000 of 3144 bytes)`); `nil` otherwise and for a reused file.
  public var colorNote: String?
  /// The thumbnail's ``ThumbHash``, a placeholder an app shows while the thumbnail loads, when
  /// ``ThumbnailOptions/makesThumbHash`` is set: of the pixels in the file (alpha already
  /// flattened in a JPEG); `nil` otherwise.
  public var thumbHash: ThumbHash?
  /// The byte count of the source a reused thumbnail's stamp records, when the source is gone
  /// (``Thumbnailer/existingThumbnails(ofRemovedSourceAt:sizes:)``): read with the stamp, once.
  package var removedSourceBytes: Int?

  /// Creates a result.
  /// - Parameters:
  ///   - source: The source path, if any.
  ///   - path: The thumbnail path.
  ///   - width: Width in pixels.
  ///   - height: Height in pixels.
  ///   - format: File format.
  ///   - reused: Whether it was reused.
  public init(
    source: String?, path: String, width: Int, height: Int, format: ImageFormat, reused: Bool
  ) {
    self.source = source
    self.path = path
    self.width = width
    self.height = height
    self.format = format
    self.reused = reused
  }
}
