import Foundation
import ImageCodecs
import ParseFetch

/// Loads images from Parse file columns and plain URLs through the validated disk cache.
///
/// ```swift
/// let fetcher = try ImageFetcher(configuration: try ParseConfiguration())
/// let photo = ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm")
/// let image = try await fetcher.image(of: photo, column: "MainImage") { print($0) }
/// ```
///
/// A download is decoded in full before it may enter the cache, and that decode is the image
/// handed back: nothing is decoded twice. A cache hit costs no file request and is decoded
/// from disk. Concurrent loads of one file share one download and one decode.
public final class ImageFetcher: Sendable {
  /// The Parse client, when a server is configured.
  public let client: ParseClient?
  /// The cache and downloader, with the decoder as their validation.
  public let files: FileFetcher<Image>
  /// The options of every decode (limits, strictness, pixel format).
  public let decodeOptions: DecodeOptions

  /// Creates a fetcher.
  /// - Parameters:
  ///   - configuration: The Parse Server, or nil to load plain URLs only.
  ///   - cache: The disk cache; the default directory when nil.
  ///   - downloader: Size limit, idle timeout and retries of downloads.
  ///   - decodeOptions: Options of the validating decode.
  /// - Throws: ``ImageFetchError/cache(_:)`` when the cache directory cannot be created.
  public init(
    configuration: ParseConfiguration? = nil, cache: DiskCache? = nil,
    downloader: Downloader = Downloader(), decodeOptions: DecodeOptions = DecodeOptions()
  ) throws(ImageFetchError) {
    let store: DiskCache
    if let cache {
      store = cache
    } else {
      do { store = try DiskCache() } catch { throw .cache(error) }
    }
    self.client = configuration.map { ParseClient(configuration: $0) }
    self.decodeOptions = decodeOptions
    self.files = FileFetcher(cache: store, downloader: downloader) { url in
      try ImageDecoder.decode(contentsOf: url.path, options: decodeOptions)
    }
  }

  /// Brings a file into the cache and returns it with its image.
  ///
  /// The image is the validating decode's when the file was downloaded now; on a hit the cached
  /// file is decoded, and if that fails (the file was damaged on disk) it is removed and
  /// downloaded again once.
  func load(
    _ url: URL, key: CacheKey, headers: [String: String], headersOrigin: URL? = nil,
    progress: ProgressHandler?
  ) async throws -> (FetchedFile<Image>, Image) {
    do {
      let file = try await files.fetch(
        url, key: key, headers: headers, headersOrigin: headersOrigin, progress: progress)
      if let image = file.value { return (file, image) }
      do {
        return (file, try ImageDecoder.decode(contentsOf: file.url.path, options: decodeOptions))
      } catch {
        try files.cache.removeEntry(for: key)
        let fresh = try await files.fetch(
          url, key: key, headers: headers, headersOrigin: headersOrigin, progress: progress)
        guard let image = fresh.value else { throw error }
        return (fresh, image)
      }
    } catch {
      throw ImageFetchError.wrap(error)
    }
  }
}
