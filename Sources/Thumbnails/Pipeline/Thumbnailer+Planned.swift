import ImageCodecs

extension Thumbnailer {
  /// What ``makeThumbnail(forFileAt:)`` would do, without doing it (`imgfetch --dry-run`): the
  /// up-to-date thumbnail it would reuse (`reused` set), or the file it would write, with the
  /// planned size and format (`reused` clear). Reads the thumbnail's stamp and the source's
  /// header only; decodes and writes nothing, so it does not say whether the source's pixels are
  /// valid.
  /// - Parameter path: The source file.
  /// - Returns: The thumbnail that is there or would be written.
  /// - Throws: ``ThumbnailError/decode(_:)`` when the source is missing or its header unreadable;
  ///   ``ThumbnailError/invalidOptions(_:)`` as ``makeThumbnail(forFileAt:)``.
  public func plannedThumbnail(forFileAt path: String) throws(ThumbnailError) -> ThumbnailResult {
    try validate()
    guard let status = FileStatus.of(path) else {
      throw .decode(DecodeError(kind: .io, format: nil, message: ThumbnailWriter.systemError(), path: path))
    }
    let reuse = ThumbnailReuse(source: path, status: status, options: options)
    if !options.remakesCurrentThumbnails, let existing = try reuse.existingThumbnail() { return existing }
    let header = try decoding { () throws(DecodeError) in
      try ImageDecoder.probe(contentsOf: path, limits: options.limits)
    }
    let format = options.format.resolved(hasAlpha: header.hasAlpha)
    let plan = plan(for: header)
    return ThumbnailResult(
      source: path, path: try target(forSource: path, format: format.format), width: plan.width,
      height: plan.height, format: format.format, reused: false)
  }
}
