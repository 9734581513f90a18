import Foundation
import ImageCodecs
import ParseFetch
public import Thumbnails

extension ImageFetcher {
  /// Loads the file of an object's column through the validated cache and makes (or reuses) its
  /// thumbnail next to the cached original.
  ///
  /// ```swift
  /// let (file, thumbnail) = try await fetcher.thumbnail(
  ///   of: photo, column: "MainImage", options: ThumbnailOptions(size: .longestSide(256)))
  /// print(file.url.path, thumbnail.path)
  /// ```
  /// - Parameters:
  ///   - object: The object.
  ///   - column: Its file column.
  ///   - options: The thumbnail's size, fit, format and filter.
  ///   - progress: Called with download progress (once, complete, on a hit).
  /// - Returns: The cached original and the thumbnail file.
  /// - Throws: ``ImageFetchError`` for the fetch, `ThumbnailError` for the thumbnail, or `CancellationError`.
  public func thumbnail(
    of object: ParseObjectReference, column: String, options: ThumbnailOptions, progress: ProgressHandler? = nil
  ) async throws -> (original: FetchedFile<Image>, thumbnail: ThumbnailResult) {
    let original = try await cachedFile(of: object, column: column, progress: progress)
    return (original, try Thumbnailer(options: options).makeThumbnail(forFileAt: original.url.path))
  }

  /// Loads a plain URL through the validated cache and makes (or reuses) its thumbnail next to the
  /// cached original.
  /// - Parameters:
  ///   - url: The image's address.
  ///   - options: The thumbnail's size, fit, format and filter.
  ///   - progress: Called with download progress.
  /// - Returns: The cached original and the thumbnail file.
  /// - Throws: ``ImageFetchError`` for the fetch, `ThumbnailError` for the thumbnail, or `CancellationError`.
  public func thumbnail(at url: URL, options: ThumbnailOptions, progress: ProgressHandler? = nil) async throws
    -> (original: FetchedFile<Image>, thumbnail: ThumbnailResult)
  {
    let original = try await cachedFile(at: url, progress: progress)
    return (original, try Thumbnailer(options: options).makeThumbnail(forFileAt: original.url.path))
  }
}
