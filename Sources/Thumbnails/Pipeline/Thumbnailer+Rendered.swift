public import ImageCodecs

/// A thumbnail rendered and not yet written: the pixels (alpha flattened when the format is
/// JPEG) and the format it will be encoded in.
public struct RenderedThumbnail: Sendable {
  /// The thumbnail's pixels, upright.
  public let image: Image
  /// The encoded format resolved from the options and the source's alpha.
  let format: EncodedFormat
}

// Added by `pipe` for the download path (10.1): the download's validating decode is the
// thumbnail's decode, rendered before the file enters the cache and written after, when the
// entry's final name, size and time (the stamp's key) are known.
extension Thumbnailer {
  /// Decodes an image file at the plan's shrink-on-load scale and renders its thumbnail, without
  /// writing anything. The decode is strict, so it is also the file's verdict (with
  /// ``ThumbnailOptions/decodesEveryScan`` set, a progressive JPEG's every scan is decoded).
  /// - Parameter path: The source file.
  /// - Returns: The rendered thumbnail, for ``writeThumbnail(_:forFileAt:)``.
  /// - Throws: ``ThumbnailError/decode(_:)`` when the file is not a complete, valid image;
  ///   ``ThumbnailError/invalidOptions(_:)`` when the options cannot make a thumbnail.
  public func renderThumbnail(contentsOf path: String) throws(ThumbnailError) -> RenderedThumbnail {
    let rendered = try render(FileSource(file: path, limits: options.limits), flattenAlpha: nil)
    return RenderedThumbnail(image: rendered.image, format: rendered.format)
  }

  /// Writes a thumbnail rendered by this thumbnailer from the file now at `path` as that file's
  /// thumbnail: the name ``ThumbnailNaming`` gives, a stamp from the file's status (so a later
  /// ``makeThumbnail(forFileAt:)`` reuses it), written atomically.
  /// - Parameters:
  ///   - rendered: From ``renderThumbnail(contentsOf:)`` of the same bytes.
  ///   - path: The source file, in its final place.
  /// - Returns: What was written.
  /// - Throws: ``ThumbnailError`` when the file cannot be read or written.
  public func writeThumbnail(_ rendered: RenderedThumbnail, forFileAt path: String) throws(ThumbnailError)
    -> ThumbnailResult
  {
    guard let status = FileStatus.of(path) else {
      throw .decode(DecodeError(kind: .io, format: nil, message: ThumbnailWriter.systemError(), path: path))
    }
    let reuse = ThumbnailReuse(source: path, status: status, options: options)
    let target = ThumbnailNaming.path(
      forSource: path, size: options.size, fit: options.fit, format: rendered.format.imageFormat)
    let stamp = ThumbnailStamp(
      key: reuse.key(for: rendered.format), width: rendered.image.width, height: rendered.image.height)
    try ThumbnailWriter.write(
      rendered.image, as: rendered.format, stamp: stamp, to: target, flushesToDisk: options.flushesToDisk)
    return ThumbnailResult(
      source: path, path: target, width: rendered.image.width, height: rendered.image.height,
      format: rendered.format.imageFormat, reused: false)
  }
}
