extension Thumbnailer {
  /// The thumbnails made earlier from a source that is no longer on disk, one per size, when every
  /// size has one that is current; nil otherwise (nothing is decoded or written).
  ///
  /// This is how a load with ``ThumbnailOptions/keepsCachedOriginal`` off knows, without the
  /// original, that its thumbnails need not be made again. With the source gone, its size and
  /// modification time cannot be compared, so a thumbnail is current when its stamp names the source's
  /// file name and every option these thumbnails would be made with (size, fit, filter, format,
  /// colour, metadata, background, crop). That is sound for a source whose name fixes its content: a
  /// cache entry, named by its key (a Parse file's name, unique to its upload, or the hash of a URL),
  /// which the cache never downloads again while an entry or these thumbnails stand for it.
  /// - Parameters:
  ///   - path: Where the source was (a cache entry's path); nothing need be there.
  ///   - sizes: The sizes wanted; ``ThumbnailOptions/size`` alone when empty.
  /// - Returns: One result per size (`reused` true), in the order of `sizes`, or nil.
  public func existingThumbnails(ofRemovedSourceAt path: String, sizes: [ThumbnailSize] = []) -> [ThumbnailResult]? {
    guard !options.remakesCurrentThumbnails else { return nil }
    var results: [ThumbnailResult] = []
    for size in sizes.isEmpty ? [options.size] : sizes {
      let reuse = ThumbnailReuse(source: path, status: nil, options: options.sized(size))
      guard let existing = try? reuse.existingThumbnail() else {
        return nil
      }
      results.append(existing)
    }
    return results
  }
}
