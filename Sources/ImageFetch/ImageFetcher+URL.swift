import FoundationEssentials
import ImageCodecs
import ParseFetch

extension ImageFetcher {
  /// Loads the image at a plain http(s) URL, cached under its last path component plus a hash
  /// of the URL. No Parse credentials are sent.
  /// - Parameters:
  ///   - url: The image's URL.
  ///   - progress: Called as bytes arrive; a cache hit reports completion once.
  /// - Returns: The decoded image.
  /// - Throws: ``ImageFetchError``.
  public func image(at url: URL, progress: ProgressHandler? = nil) async throws(ImageFetchError) -> Image {
    try await load(Source(url: url, key: CacheKey(url: url.absoluteString)), progress: progress).image
  }

  /// Makes sure the file at a plain URL is cached and valid, without decoding a hit.
  /// - Parameters:
  ///   - url: The image's URL.
  ///   - progress: Called as bytes arrive.
  /// - Returns: The cache entry.
  /// - Throws: ``ImageFetchError``.
  public func cachedFile(at url: URL, progress: ProgressHandler? = nil) async throws(ImageFetchError)
    -> FetchedFile<ValidatedImage>
  {
    try await fetch(Source(url: url, key: CacheKey(url: url.absoluteString)), goal: .verdict, progress: progress)
  }
}
