import ImageCodecs

/// Decides whether an existing thumbnail file can stand for a new one.
struct ThumbnailReuse {
  /// The source path.
  let source: String
  /// The source's size and modification time now.
  let status: FileStatus
  /// The options of the thumbnail wanted.
  let options: ThumbnailOptions

  /// The stamp key a thumbnail of this source in `format` must carry.
  func key(for format: EncodedFormat) -> String {
    let name =
      source.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? source
    return ThumbnailStamp.key(
      sourceName: name, sourceBytes: status.size, sourceModified: status.modifiedText,
      options: options,
      format: format)
  }

  /// The existing thumbnail that can be reused, if any: for each format the options can produce
  /// (the source's alpha is not known without reading it), the file at the planned name must be
  /// at least as new as the source and carry the expected stamp.
  func existingThumbnail() -> ThumbnailResult? {
    let formats = [
      options.format.resolved(hasAlpha: false), options.format.resolved(hasAlpha: true),
    ]
    for format in formats {
      let candidate = ThumbnailNaming.path(
        forSource: source, size: options.size, fit: options.fit, format: format.imageFormat)
      guard let existing = FileStatus.of(candidate), existing.isNotOlder(than: status),
        let stamp = ThumbnailStamp.read(fromFileAt: candidate), stamp.key == key(for: format)
      else { continue }
      return ThumbnailResult(
        source: source, path: candidate, width: stamp.width, height: stamp.height,
        format: format.imageFormat,
        reused: true)
    }
    return nil
  }
}
