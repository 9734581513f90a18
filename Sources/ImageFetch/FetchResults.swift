import FoundationEssentials
import ImageCodecs
import ParseFetch
import Thumbnails

/// What the validating decode of a download produced: always the header, and the pixels when
/// the caller asked for them.
public struct ValidatedImage: Sendable {
  /// The image's header, as the decoder read it.
  public var header: ImageHeader
  /// The full-size pixels, when the fetch asked for them (``ImageFetcher/image(of:column:progress:)``).
  public var image: Image?
  /// The thumbnail made from the same decode's rows, when the fetch asked for one (ready for its
  /// file: alpha composited over white when its format is JPEG).
  public var thumbnail: Image?
  /// The decode several thumbnails are made from (``DecodeGoal/thumbnails(_:_:)``), at their scale:
  /// used by the fetcher and then dropped, as it is not the full-size ``image``.
  var decodedForSizes: Image?

  /// The stored width.
  public var width: Int { header.width }
  /// The stored height.
  public var height: Int { header.height }

  init(header: ImageHeader, image: Image? = nil, thumbnail: Image? = nil) {
    self.header = header
    self.image = image
    self.thumbnail = thumbnail
  }
}

/// An image loaded through the cache: the cache entry and its full-size pixels.
public struct LoadedImage: Sendable {
  /// The cache entry (a hit, or downloaded and validated now).
  public var file: FetchedFile<ValidatedImage>
  /// The decoded image: the validating decode's on a miss, a decode of the entry on a hit.
  public var image: Image
}

/// A cached original and its thumbnail file (or files, one per size).
public struct FetchedThumbnail: Sendable {
  /// The cache entry of the original. When ``originalIsKept`` is false its file is no longer at
  /// ``/ParseFetch/FetchedFile/path``; ``/ParseFetch/FetchedFile/value`` holds its header when this
  /// load read it, and is nil when an earlier load's thumbnails were found current
  /// (``/ParseFetch/FetchedFile/isCacheHit`` is true then: nothing was downloaded).
  public var original: FetchedFile<ValidatedImage>
  /// The thumbnail file next to it (reused when its stamp matches); the first size's with several.
  public var thumbnail: ThumbnailResult
  /// Every size's thumbnail, in the order asked (one element for one size).
  public var thumbnails: [ThumbnailResult]
  /// Whether the original stays in the cache: false when
  /// ``/Thumbnails/ThumbnailOptions/keepsCachedOriginal`` is off, which removes it once its
  /// thumbnails are written.
  public var originalIsKept: Bool

  init(original: FetchedFile<ValidatedImage>, thumbnails: [ThumbnailResult], originalIsKept: Bool = true) {
    self.original = original
    self.thumbnail = thumbnails[0]
    self.thumbnails = thumbnails
    self.originalIsKept = originalIsKept
  }
}
