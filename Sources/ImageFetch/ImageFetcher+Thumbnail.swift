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
  ///
  /// With several `sizes`, one thumbnail per size (``FetchedThumbnail/thumbnails``), made as
  /// ``/Thumbnails/Thumbnailer/makeThumbnails(forFileAt:sizes:)`` makes them; a download's are
  /// made from the decode that validates it, so it is decoded once. With
  /// ``/Thumbnails/ThumbnailOptions/keepsCachedOriginal`` off, the original is removed from the
  /// cache once its thumbnails are written, and a later load that finds them current downloads
  /// nothing (``FetchedThumbnail/originalIsKept``).
  /// - Parameters:
  ///   - object: The object.
  ///   - column: Its file column.
  ///   - options: The thumbnail's size, fit, format and filter.
  ///   - sizes: Several sizes to make from one decode; `options.size` alone when empty.
  ///   - progress: Called with download progress (once, complete, on a hit).
  /// - Returns: The cached original and the thumbnail file.
  /// - Throws: ``ImageFetchError`` (``ImageFetchError/thumbnail(_:)`` when the thumbnail of a valid
  ///   original cannot be made).
  public func thumbnail(
    of object: ParseObjectReference, column: String, options: ThumbnailOptions, sizes: [ThumbnailSize] = [],
    progress: ProgressHandler? = nil
  ) async throws(ImageFetchError) -> FetchedThumbnail {
    try await thumbnail(of: source(of: object, column: column), options: options, sizes: sizes, progress: progress)
  }

  /// Loads a resolved Parse file through the validated cache and makes (or reuses) its thumbnail
  /// (as ``thumbnail(of:column:options:sizes:progress:)``).
  /// - Parameters:
  ///   - file: The file's name and URL (such as from a class listing).
  ///   - options: The thumbnail's size, fit, format and filter.
  ///   - sizes: Several sizes to make from one decode; `options.size` alone when empty.
  ///   - progress: Called with download progress.
  /// - Returns: The cached original and the thumbnail file.
  /// - Throws: ``ImageFetchError``.
  public func thumbnail(
    for file: ParseFile, options: ThumbnailOptions, sizes: [ThumbnailSize] = [], progress: ProgressHandler? = nil
  ) async throws(ImageFetchError) -> FetchedThumbnail {
    try await thumbnail(of: source(of: file), options: options, sizes: sizes, progress: progress)
  }

  /// Loads a plain URL through the validated cache and makes (or reuses) its thumbnail next to the
  /// cached original (as ``thumbnail(of:column:options:sizes:progress:)``).
  /// - Parameters:
  ///   - url: The image's address.
  ///   - options: The thumbnail's size, fit, format and filter.
  ///   - sizes: Several sizes to make from one decode; `options.size` alone when empty.
  ///   - progress: Called with download progress.
  /// - Returns: The cached original and the thumbnail file.
  /// - Throws: ``ImageFetchError``.
  public func thumbnail(
    at url: URL, options: ThumbnailOptions, sizes: [ThumbnailSize] = [], progress: ProgressHandler? = nil
  ) async throws(ImageFetchError) -> FetchedThumbnail {
    try await thumbnail(
      of: Source(url: url, key: CacheKey(url: url.absoluteString)), options: options, sizes: sizes,
      progress: progress)
  }

  func thumbnail(of source: Source, options: ThumbnailOptions, sizes: [ThumbnailSize], progress: ProgressHandler?)
    async throws(ImageFetchError) -> FetchedThumbnail
  {
    let sizes = sizes.isEmpty ? [options.size] : sizes
    let first = options.sized(sizes[0])
    if !options.keepsCachedOriginal, let kept = keptThumbnails(of: source, options: first, sizes: sizes) {
      return kept
    }
    // A download's one decode validates it and makes every size: streamed into one thumbnail, or
    // kept whole at the scale the largest of several needs.
    let goal: DecodeGoal = sizes.count == 1 ? .thumbnail(first) : .thumbnails(first, sizes)
    var original = try await fetch(source, goal: goal, progress: progress)
    let (path, rendered, forSizes) = (original.path, original.value?.thumbnail, original.value?.decodedForSizes)
    let header = original.value?.header
    original.value?.decodedForSizes = nil
    let made: [ThumbnailResult]
    do {
      made = try await CPUWork.shared.run {
        let thumbnailer = Thumbnailer(options: first)
        if sizes.count > 1 {
          // A hit was not decoded now: the cached file's one decode makes them.
          guard let forSizes, let header else { return try thumbnailer.makeThumbnails(forFileAt: path, sizes: sizes) }
          return try thumbnailer.makeThumbnails(forFileAt: path, sizes: sizes, from: forSizes, header: header)
        }
        // A download's decode already rendered it; a hit reuses the file its stamp matches.
        return [
          try rendered.map { try thumbnailer.writeThumbnail($0, forFileAt: path) }
            ?? thumbnailer.makeThumbnail(forFileAt: path)
        ]
      }
    } catch {
      // A load sharing this download, keeping no original either, may have written the thumbnails
      // and removed the entry meanwhile.
      if !options.keepsCachedOriginal, let kept = keptThumbnails(of: source, options: first, sizes: sizes) {
        return kept
      }
      throw .wrap(error, url: source.url)
    }
    for thumbnail in made where !thumbnail.reused { files.cache.didWriteDerivedFile(at: thumbnail.path) }
    guard !options.keepsCachedOriginal else { return FetchedThumbnail(original: original, thumbnails: made) }
    // A hit was not decoded now: its header is read before the entry goes, so the caller still has it.
    if original.value == nil, let header = try? ImageDecoder.probe(contentsOf: path, limits: decodeOptions.limits) {
      original.value = ValidatedImage(header: header)
    }
    do { try files.cache.removeEntry(for: source.key) } catch { throw .cache(error) }
    return FetchedThumbnail(original: original, thumbnails: made, originalIsKept: false)
  }

  /// The thumbnails an earlier load that kept no original left for this source, when its entry is
  /// not in the cache and every size's thumbnail is current (their stamps name the entry and these
  /// options): the result of a load that downloads nothing.
  private func keptThumbnails(of source: Source, options: ThumbnailOptions, sizes: [ThumbnailSize])
    -> FetchedThumbnail?
  {
    guard files.cache.cachedFile(for: source.key) == nil else { return nil }
    let entry = files.cache.path(for: source.key)
    guard let kept = Thumbnailer(options: options).existingThumbnails(ofRemovedSourceAt: entry, sizes: sizes)
    else { return nil }
    let bytes = kept[0].removedSourceBytes
    let original = FetchedFile<ValidatedImage>(
      key: source.key, path: entry, value: nil, isCacheHit: true, byteCount: Int64(bytes ?? 0))
    return FetchedThumbnail(original: original, thumbnails: kept, originalIsKept: false)
  }
}
