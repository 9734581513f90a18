import Foundation
import ImageCodecs
import ParseFetch

extension ImageFetcher {
  /// Loads the image at a plain http(s) URL, cached under its last path component plus a hash
  /// of the URL. No Parse credentials are sent.
  /// - Parameters:
  ///   - url: The image's URL.
  ///   - progress: Called as bytes arrive; a cache hit reports completion once.
  /// - Returns: The decoded image.
  /// - Throws: ``ImageFetchError``, or `CancellationError`.
  public func image(at url: URL, progress: ProgressHandler? = nil) async throws -> Image {
    try await load(url, key: CacheKey(url: url.absoluteString), headers: [:], progress: progress).1
  }

  /// Makes sure the file at a plain URL is cached and valid, without decoding a hit.
  /// - Parameters:
  ///   - url: The image's URL.
  ///   - progress: Called as bytes arrive.
  /// - Returns: The cache entry.
  /// - Throws: ``ImageFetchError``, or `CancellationError`.
  public func cachedFile(at url: URL, progress: ProgressHandler? = nil) async throws
    -> FetchedFile<Image>
  {
    do {
      return try await files.fetch(url, key: CacheKey(url: url.absoluteString), progress: progress)
    } catch {
      throw ImageFetchError.wrap(error)
    }
  }
}
