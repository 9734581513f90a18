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

  /// The stored width.
  public var width: Int { header.width }
  /// The stored height.
  public var height: Int { header.height }
}

/// An image loaded through the cache: the cache entry and its full-size pixels.
public struct LoadedImage: Sendable {
  /// The cache entry (a hit, or downloaded and validated now).
  public var file: FetchedFile<ValidatedImage>
  /// The decoded image: the validating decode's on a miss, a decode of the entry on a hit.
  public var image: Image
}

/// A cached original and its thumbnail file.
public struct FetchedThumbnail: Sendable {
  /// The cache entry of the original.
  public var original: FetchedFile<ValidatedImage>
  /// The thumbnail file next to it (reused when its stamp matches).
  public var thumbnail: ThumbnailResult
}
