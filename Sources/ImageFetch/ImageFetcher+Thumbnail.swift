import FoundationEssentials
import ImageCodecs
import ParseFetch
public import Thumbnails

extension ImageFetcher {
  /// Loads the file of an object's column through the validated cache and makes (or reuses) its
  /// thumbnail next to the cached original.
  ///
  /// ```swift
  /// let result = try await fetcher.thumbnail(
  ///   of: photo, column: "MainImage", options: ThumbnailOptions(size: .longestSide(256)))
  /// print(result.original.path, result.thumbnail.path)
  /// ```
  /// - Parameters:
  ///   - object: The object.
  ///   - column: Its file column.
  ///   - options: The thumbnail's size, fit, format and filter.
  ///   - progress: Called with download progress (once, complete, on a hit).
  /// - Returns: The cached original and the thumbnail file.
  /// - Throws: ``ImageFetchError`` (``ImageFetchError/thumbnail(_:)`` when the thumbnail of a valid
  ///   original cannot be made).
  public func thumbnail(
    of object: ParseObjectReference, column: String, options: ThumbnailOptions, progress: ProgressHandler? = nil
  ) async throws(ImageFetchError) -> FetchedThumbnail {
    try await thumbnail(of: source(of: object, column: column), options: options, progress: progress)
  }

  /// Loads a resolved Parse file through the validated cache and makes (or reuses) its thumbnail.
  /// - Parameters:
  ///   - file: The file's name and URL (such as from a class listing).
  ///   - options: The thumbnail's size, fit, format and filter.
  ///   - progress: Called with download progress.
  /// - Returns: The cached original and the thumbnail file.
  /// - Throws: ``ImageFetchError``.
  public func thumbnail(for file: ParseFile, options: ThumbnailOptions, progress: ProgressHandler? = nil)
    async throws(ImageFetchError) -> FetchedThumbnail
  {
    try await thumbnail(of: source(of: file), options: options, progress: progress)
  }

  /// Loads a plain URL through the validated cache and makes (or reuses) its thumbnail next to the
  /// cached original.
  /// - Parameters:
  ///   - url: The image's address.
  ///   - options: The thumbnail's size, fit, format and filter.
  ///   - progress: Called with download progress.
  /// - Returns: The cached original and the thumbnail file.
  /// - Throws: ``ImageFetchError``.
  public func thumbnail(at url: URL, options: ThumbnailOptions, progress: ProgressHandler? = nil)
    async throws(ImageFetchError) -> FetchedThumbnail
  {
    try await thumbnail(
      of: Source(url: url, key: CacheKey(url: url.absoluteString)), options: options, progress: progress)
  }

  func thumbnail(of source: Source, options: ThumbnailOptions, progress: ProgressHandler?)
    async throws(ImageFetchError) -> FetchedThumbnail
  {
    let original = try await fetch(source, goal: .thumbnail(options), progress: progress)
    let (path, rendered) = (original.path, original.value?.thumbnail)
    do {
      let thumbnail = try await CPUWork.shared.run {
        let thumbnailer = Thumbnailer(options: options)
        // A download's decode already rendered it; a hit reuses the file its stamp matches.
        return try rendered.map { try thumbnailer.writeThumbnail($0, forFileAt: path) }
          ?? thumbnailer.makeThumbnail(forFileAt: path)
      }
      if !thumbnail.reused { files.cache.didWriteDerivedFile(at: thumbnail.path) }
      return FetchedThumbnail(original: original, thumbnail: thumbnail)
    } catch {
      throw .wrap(error, url: source.url)
    }
  }
}
