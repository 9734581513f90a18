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
    if sizes.count == 1 { return [try Thumbnailer(options: options.sized(sizes[0])).makeThumbnail(forFileAt: path)] }
    var pending = try PendingSizes(self, path: path, sizes: sizes)
    if pending.isDone { return pending.results() }
    let source = FileSource(file: path, limits: options.limits)
    let header = try decoding { () throws(DecodeError) in try source.probe() }
    try pending.checkLimits(header)
    let scale = scale(for: header, sizes: sizes)
    let decoded = try decoding { () throws(DecodeError) in
      try source.decode(options.sourceDecodeOptions(at: scale))
    }
    try pending.render(decoded, header: header, scale: scale)
    return pending.results()
  }

  /// Makes (or reuses) one thumbnail file per size from a decode already made of the file at `path`:
  /// a download's validating decode, made with ``decodeOptions`` at ``scale(for:sizes:)``, so that a
  /// downloaded source is decoded once, however many sizes it gets. The files and pixels are those
  /// of ``makeThumbnails(forFileAt:sizes:)``.
  /// - Parameters:
  ///   - path: The source file the decode was made of (stamps name it, and its size and date).
  ///   - sizes: The sizes, at least one.
  ///   - decoded: The decode, in the source's pixel format, at `scale(for: header, sizes: sizes)`.
  ///   - header: The source's header.
  /// - Returns: One result per size, in the order of `sizes`.
  /// - Throws: As ``makeThumbnails(forFileAt:sizes:)``.
  public func makeThumbnails(forFileAt path: String, sizes: [ThumbnailSize], from decoded: Image, header: ImageHeader)
    throws(ThumbnailError) -> [ThumbnailResult]
  {
    guard !sizes.isEmpty else { throw .invalidOptions("no thumbnail size") }
    var pending = try PendingSizes(self, path: path, sizes: sizes)
    if pending.isDone { return pending.results() }
    try pending.checkLimits(header)
    let scale = scale(for: header, sizes: sizes)
    // A decode made for other sizes (a download shared by callers asking different ones) is not used.
    guard (scale.scaled(header.width), scale.scaled(header.height)) == (decoded.width, decoded.height) else {
      return try makeThumbnails(forFileAt: path, sizes: sizes)
    }
    try pending.render(decoded, header: header, scale: scale)
    return pending.results()
  }

  /// The options of a decode that makes several sizes: the source's pixel format, strict, at full
  /// scale until ``scale(for:sizes:)`` sets it (a ``/ImageCodecs/StreamingDecoder``'s `scaleForHeader`).
  public var decodeOptions: DecodeOptions {
    options.sourceDecodeOptions()
  }

  /// The shrink-on-load scale one decode for these sizes runs at: the finest any of them needs
  /// (the largest thumbnail's).
  /// - Parameters:
  ///   - header: The source's header.
  ///   - sizes: The sizes.
  /// - Returns: The DCT (or WebP) scale.
  public func scale(for header: ImageHeader, sizes: [ThumbnailSize]) -> JPEGScale {
    sizes.map { Thumbnailer(options: options.sized($0)).plan(for: header).jpegScale }
      .max { $0.eighths < $1.eighths } ?? .full
  }
}

/// The sizes of one source still to make: each size's thumbnailer, and the thumbnails already current.
private struct PendingSizes {
  let thumbnailer: Thumbnailer
  let path: String
  let status: FileStatus
  let each: [Thumbnailer]
  var made: [ThumbnailResult?]

  init(_ thumbnailer: Thumbnailer, path: String, sizes: [ThumbnailSize]) throws(ThumbnailError) {
    self.thumbnailer = thumbnailer
    self.path = path
    each = sizes.map { Thumbnailer(options: thumbnailer.options.sized($0)) }
    for sized in each { try sized.validate() }
    guard let status = FileStatus.of(path) else {
      throw .decode(DecodeError(kind: .io, format: nil, message: ThumbnailWriter.systemError(), path: path))
    }
    self.status = status
    made = []
    for sized in each {
      let reuse = ThumbnailReuse(source: path, status: status, options: sized.options)
      made.append(thumbnailer.options.remakesCurrentThumbnails ? nil : try reuse.existingThumbnail())
    }
  }

  var isDone: Bool { made.allSatisfy { $0 != nil } }
  func results() -> [ThumbnailResult] { made.compactMap { $0 } }

  /// Refuses, before any decode, a size whose thumbnail would be over the pixel limit.
  func checkLimits(_ header: ImageHeader) throws(ThumbnailError) {
    let limit = thumbnailer.options.limits.maxPixels
    for plan in each.map({ $0.plan(for: header) }) where plan.width * plan.height > limit {
      throw .invalidOptions("a \(plan.width)x\(plan.height) thumbnail is over the \(limit)-pixel limit")
    }
  }

  /// Renders and writes every size not current from `decoded`, made at `scale`.
  mutating func render(_ decoded: Image, header: ImageHeader, scale: JPEGScale) throws(ThumbnailError) {
    let options = thumbnailer.options
    let format = options.format.resolved(hasAlpha: header.hasAlpha)
    let exif = thumbnailer.keptExif(ofFileAt: path)
    for (index, sized) in each.enumerated() where made[index] == nil {
      let own = sized.plan(for: header)
      let plan =
        own.jpegScale == scale
        ? own
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
        createsFolders: thumbnailer.createsFolders, replacesUnstampedFiles: options.replacesUnstampedFiles,
        exif: exif, templated: options.nameTemplate != nil)
      var result = ThumbnailResult(
        source: path, path: target, width: image.width, height: image.height, format: format.format,
        reused: false)
      result.colorNote = image.colorSpace.ignoredProfile
      result.thumbHash = sized.thumbHash(of: image)
      made[index] = result
    }
  }
}
