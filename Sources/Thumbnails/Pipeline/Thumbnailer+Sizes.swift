import ImageCodecs

extension Thumbnailer {
  /// Makes (or reuses) one thumbnail file per size from one decode of the source
  /// (`imgfetch --thumbnail 64,256,1024`, for `srcset`-style sets).
  ///
  /// Each size's file is named, stamped and reused exactly as ``makeThumbnail(forFileAt:)`` with
  /// ``ThumbnailOptions/size`` set to it would name, stamp and reuse it. When every file is
  /// up to date nothing is decoded; otherwise the source is decoded once, at the shrink-on-load
  /// scale the largest thumbnail needs, and every missing size is rendered from that decode. A
  /// size whose own plan would decode at that same scale (every size of a PNG; the largest
  /// always) gets the very pixels a run for that size alone gives; a smaller size of a JPEG or
  /// WebP, whose own run would shrink more on load, is box-shrunk from the finer decode instead,
  /// which can differ from its own run's pixels by a few levels (it is no less sharp).
  ///
  /// Memory: the decode is held whole (at the largest size's scale) while the sizes are made,
  /// unlike one size's row-by-row stream.
  ///
  /// ```swift
  /// let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(64)))
  /// let made = try thumbnailer.makeThumbnails(
  ///   forFileAt: "photos/photo.jpg",
  ///   sizes: [.longestSide(64), .longestSide(256), .longestSide(1024)])
  /// // made[1].path == "photos/photo.jpg.thumb-256.jpg"
  /// ```
  /// - Parameters:
  ///   - path: The source file.
  ///   - sizes: The sizes, at least one; ``ThumbnailOptions/size`` is not used.
  /// - Returns: One result per size, in the order of `sizes`.
  /// - Throws: As ``makeThumbnail(forFileAt:)``; ``ThumbnailError/invalidOptions(_:)`` for no size.
  public func makeThumbnails(forFileAt path: String, sizes: [ThumbnailSize]) throws(ThumbnailError)
    -> [ThumbnailResult]
  {
    guard !sizes.isEmpty else { throw .invalidOptions("no thumbnail size") }
    let each = sizes.map { Thumbnailer(options: options.sized($0)) }
    if sizes.count == 1 { return [try each[0].makeThumbnail(forFileAt: path)] }
    for sized in each { try sized.validate() }
    guard let status = FileStatus.of(path) else {
      throw .decode(DecodeError(kind: .io, format: nil, message: ThumbnailWriter.systemError(), path: path))
    }
    var results: [ThumbnailResult?] = []
    for sized in each {
      let reuse = ThumbnailReuse(source: path, status: status, options: sized.options)
      results.append(options.remakesCurrentThumbnails ? nil : try reuse.existingThumbnail())
    }
    if results.allSatisfy({ $0 != nil }) { return results.compactMap { $0 } }

    let source = FileSource(file: path, limits: options.limits)
    let header = try decoding { () throws(DecodeError) in try source.probe() }
    let format = options.format.resolved(hasAlpha: header.hasAlpha)
    let plans = each.map { $0.plan(for: header) }
    for plan in plans where plan.width * plan.height > options.limits.maxPixels {
      throw .invalidOptions(
        "a \(plan.width)x\(plan.height) thumbnail is over the \(options.limits.maxPixels)-pixel limit")
    }
    // The finest scale any size needs (the largest thumbnail's).
    let scale = plans.map(\.jpegScale).max { $0.eighths < $1.eighths } ?? .full
    let decoded = try decoding { () throws(DecodeError) in
      try source.decode(
        DecodeOptions(pixelFormat: .source, limits: options.limits, strictness: .strict, jpegScale: scale))
    }
    let exif = keptExif(ofFileAt: path)
    for (index, sized) in each.enumerated() where results[index] == nil {
      let plan =
        plans[index].jpegScale == scale
        ? plans[index]
        : ThumbnailPlan(
          sourceWidth: header.width, sourceHeight: header.height, orientation: header.orientation,
          format: header.format, options: sized.options, shrinksOnLoad: header.shrinksOnLoad, decodedAt: scale)
      var image: Image
      do {
        image = try ThumbnailRenderer.render(
          decoded, plan: plan, filter: options.filter, flatten: !format.storesAlpha,
          background: options.background)
        try options.colorSpace.apply(to: &image, pixels: decoded.colorSpace)
      } catch {
        let located = DecodeError(kind: error.kind, format: header.format, message: error.message, path: path)
        throw error.kind == .outOfMemory ? .outOfMemory(located) : .decode(located)
      }
      let reuse = ThumbnailReuse(source: path, status: status, options: sized.options)
      let target = try sized.target(forSource: path, format: format.format)
      let stamp = ThumbnailStamp(key: reuse.key(for: format), width: image.width, height: image.height)
      try ThumbnailWriter.write(
        image, as: format, stamp: stamp, to: target, flushesToDisk: options.flushesToDisk,
        createsFolders: createsFolders, replacesUnstampedFiles: options.replacesUnstampedFiles, exif: exif,
        templated: options.nameTemplate != nil)
      var result = ThumbnailResult(
        source: path, path: target, width: image.width, height: image.height, format: format.format,
        reused: false)
      result.colorNote = image.colorSpace.ignoredProfile
      result.thumbHash = sized.thumbHash(of: image)
      results[index] = result
    }
    return results.compactMap { $0 }
  }
}
