import ImageCodecs

/// Decides whether an existing thumbnail file can stand for a new one.
struct ThumbnailReuse {
  /// The source path.
  let source: String
  /// The source's size and modification time now; nil for a source that is no longer on disk
  /// (a cache entry removed once its thumbnails were written, ``ThumbnailOptions/keepsCachedOriginal``).
  let status: FileStatus?
  /// The options of the thumbnail wanted.
  let options: ThumbnailOptions

  /// The stamp key a thumbnail of this source written by `encoder` must carry.
  func key(for encoder: any ImageEncoding) -> String {
    let name =
      source.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? source
    return ThumbnailStamp.key(
      sourceName: name, sourceBytes: status?.size ?? 0, sourceModified: status?.modifiedText ?? "0",
      options: options, format: encoder)
  }

  /// The existing thumbnail that can be reused, if any: for each encoder the options can resolve to
  /// (the source's alpha is not known without reading it), the file at the planned path must be at
  /// least as new as the source and carry the expected stamp. Without the source (`status` nil), the
  /// stamp must name the source file and these options; the size and time it recorded cannot be
  /// compared (``ThumbnailStamp/keyIgnoringSourceState(_:)``).
  /// - Throws: ``ThumbnailError/invalidOptions(_:)`` for a source outside the output folder's root.
  func existingThumbnail() throws(ThumbnailError) -> ThumbnailResult? {
    for encoder in options.format.candidates {
      let candidate = try ThumbnailNaming.path(forSource: source, options: options, format: encoder.format)
      guard let existing = FileStatus.of(candidate), status.map({ existing.isNotOlder(than: $0) }) ?? true,
        let stamp = ThumbnailStamp.read(fromFileAt: candidate), matches(stamp, key(for: encoder))
      else { continue }
      var result = ThumbnailResult(
        source: source, path: candidate, width: stamp.width, height: stamp.height, format: encoder.format,
        reused: true)
      if status == nil { result.removedSourceBytes = ThumbnailStamp.sourceBytes(inKey: stamp.key) }
      if options.makesThumbHash {
        // Its hash from its own small file; one that does not decode is made again.
        guard let pixels = try? ImageDecoder.decode(contentsOf: candidate) else { continue }
        result.thumbHash = ThumbHash(image: pixels)
      }
      return result
    }
    return nil
  }

  /// Whether a stamp carries the expected key (without its source's size and time, when the source is gone).
  private func matches(_ stamp: ThumbnailStamp, _ expected: String) -> Bool {
    guard status == nil else { return stamp.key == expected }
    return ThumbnailStamp.keyIgnoringSourceState(stamp.key) == ThumbnailStamp.keyIgnoringSourceState(expected)
  }
}
