import Foundation
import ImageCodecs
import ParseFetch

extension ImageFetcher {
  /// Loads the image in an object's file column: the seed's `loadParseImage`.
  /// - Parameters:
  ///   - object: The class and object id.
  ///   - column: The file column, such as `MainImage`.
  ///   - progress: Called as bytes arrive; a cache hit reports completion once.
  /// - Returns: The decoded image.
  /// - Throws: ``ImageFetchError``, or `CancellationError` when the task is cancelled.
  public func image(
    of object: ParseObjectReference, column: String, progress: ProgressHandler? = nil
  ) async throws -> Image {
    try await load(try await file(of: object, column: column), progress: progress).1
  }

  /// Makes sure an object's file is cached and valid, without decoding a hit.
  /// - Parameters:
  ///   - object: The class and object id.
  ///   - column: The file column.
  ///   - progress: Called as bytes arrive.
  /// - Returns: The cache entry (its `value` is the image when it was downloaded now).
  /// - Throws: ``ImageFetchError``, or `CancellationError`.
  public func cachedFile(
    of object: ParseObjectReference, column: String, progress: ProgressHandler? = nil
  ) async throws -> FetchedFile<Image> {
    try await cachedFile(for: try await file(of: object, column: column), progress: progress)
  }

  /// Loads the image of a file already resolved (such as from ``/ParseFetch/ParseClient/objectFiles(in:column:where:pageSize:)``),
  /// with no REST request.
  /// - Parameters:
  ///   - file: The file's name and URL.
  ///   - progress: Called as bytes arrive.
  /// - Returns: The entry and its decoded image.
  /// - Throws: ``ImageFetchError``, or `CancellationError`.
  public func load(_ file: ParseFile, progress: ProgressHandler? = nil) async throws
    -> (FetchedFile<Image>, Image)
  {
    try await load(
      file.url, key: CacheKey(parseFileName: file.name), headers: fileHeaders,
      headersOrigin: client?.configuration.serverURL, progress: progress)
  }

  /// Makes sure a resolved file is cached and valid, without decoding a hit.
  /// - Parameters:
  ///   - file: The file's name and URL.
  ///   - progress: Called as bytes arrive.
  /// - Returns: The cache entry.
  /// - Throws: ``ImageFetchError``, or `CancellationError`.
  public func cachedFile(for file: ParseFile, progress: ProgressHandler? = nil) async throws
    -> FetchedFile<Image>
  {
    do {
      return try await files.fetch(
        file.url, key: CacheKey(parseFileName: file.name), headers: fileHeaders,
        headersOrigin: client?.configuration.serverURL, progress: progress)
    } catch {
      throw ImageFetchError.wrap(error)
    }
  }

  /// The application id and session token, sent with file downloads that go to the Parse
  /// server's own origin (never to S3, a CDN or a redirect's other host).
  private var fileHeaders: [String: String] { client?.configuration.fileHeaders ?? [:] }

  private func file(of object: ParseObjectReference, column: String) async throws -> ParseFile {
    guard let client else { throw ImageFetchError.parseNotConfigured }
    do {
      return try await client.file(of: object, column: column)
    } catch {
      throw ImageFetchError.wrap(error)
    }
  }
}
