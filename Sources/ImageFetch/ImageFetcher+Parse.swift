import FoundationEssentials
import ImageCodecs
import ParseFetch

extension ImageFetcher {
  /// Loads the image in an object's file column: the seed's `loadParseImage`.
  /// - Parameters:
  ///   - object: The class and object id.
  ///   - column: The file column, such as `MainImage`.
  ///   - progress: Called as bytes arrive; a cache hit reports completion once.
  /// - Returns: The decoded image.
  /// - Throws: ``ImageFetchError``.
  public func image(
    of object: ParseObjectReference, column: String, progress: ProgressHandler? = nil
  ) async throws(ImageFetchError) -> Image {
    try await load(try await file(of: object, column: column), progress: progress).image
  }

  /// Makes sure an object's file is cached and valid, without decoding a hit.
  /// - Parameters:
  ///   - object: The class and object id.
  ///   - column: The file column.
  ///   - progress: Called as bytes arrive.
  /// - Returns: The cache entry (its `value` is the validation's result when it was downloaded now).
  /// - Throws: ``ImageFetchError``.
  public func cachedFile(
    of object: ParseObjectReference, column: String, progress: ProgressHandler? = nil
  ) async throws(ImageFetchError) -> FetchedFile<ValidatedImage> {
    try await cachedFile(for: try await file(of: object, column: column), progress: progress)
  }

  /// Loads the image of a file already resolved (such as from
  /// ``/ParseFetch/ParseClient/objectFiles(in:column:where:range:pageSize:)``),
  /// with no REST request.
  /// - Parameters:
  ///   - file: The file's name and URL.
  ///   - progress: Called as bytes arrive.
  /// - Returns: The entry and its decoded image.
  /// - Throws: ``ImageFetchError``.
  public func load(_ file: ParseFile, progress: ProgressHandler? = nil) async throws(ImageFetchError)
    -> LoadedImage
  {
    try await load(source(of: file), progress: progress)
  }

  /// Makes sure a resolved file is cached and valid, without decoding a hit.
  /// - Parameters:
  ///   - file: The file's name and URL.
  ///   - progress: Called as bytes arrive.
  /// - Returns: The cache entry.
  /// - Throws: ``ImageFetchError``.
  public func cachedFile(for file: ParseFile, progress: ProgressHandler? = nil) async throws(ImageFetchError)
    -> FetchedFile<ValidatedImage>
  {
    try await fetch(source(of: file), goal: .verdict, progress: progress)
  }

  /// Where a Parse file comes from: its URL, keyed by its name, with the application id and
  /// session token for requests to the Parse server's own origin only (never to S3, a CDN, or a
  /// redirect's other host).
  func source(of file: ParseFile) -> Source {
    Source(
      url: file.url, key: CacheKey(parseFileName: file.name),
      headers: client?.configuration.fileHeaders ?? [:], headersOrigin: client?.configuration.serverURL)
  }

  func file(of object: ParseObjectReference, column: String) async throws(ImageFetchError) -> ParseFile {
    guard let client else { throw .parseNotConfigured }
    do {
      return try await client.file(of: object, column: column)
    } catch {
      throw .wrap(error)
    }
  }

  func source(of object: ParseObjectReference, column: String) async throws(ImageFetchError) -> Source {
    source(of: try await file(of: object, column: column))
  }
}
