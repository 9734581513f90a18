public import FoundationEssentials
public import ImageCodecs

/// Makes thumbnails: plans from the header, decodes with shrink-on-load, filters to the exact
/// size with alpha premultiplied, turns the result upright, and encodes it.
///
/// ```swift
/// let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(256)))
/// let result = try thumbnailer.makeThumbnail(forFileAt: "photos/photo.jpg")
/// print(result.path)              // photos/photo.jpg.thumb-256.jpg
/// let pixels = try thumbnailer.image(contentsOf: "photos/photo.jpg")   // no file written
/// ```
///
/// A `Thumbnailer` holds only its options; it is a value and can be used from any thread.
public struct Thumbnailer: Sendable {
  /// What the thumbnails look like and how they are stored.
  public var options: ThumbnailOptions

  /// Creates a thumbnailer.
  /// - Parameter options: The options for every thumbnail it makes.
  public init(options: ThumbnailOptions) { self.options = options }

  /// Plans the thumbnail of an image file from its header alone.
  /// - Parameter path: The source file.
  /// - Returns: The plan.
  /// - Throws: ``ThumbnailError/decode(_:)`` when the header is unreadable or over the limits.
  public func plan(forFileAt path: String) throws(ThumbnailError) -> ThumbnailPlan {
    plan(
      for: try decoding { () throws(DecodeError) in
        try ImageDecoder.probe(contentsOf: path, limits: options.limits)
      })
  }

  /// The thumbnail of an image file as pixels; nothing is written.
  /// - Parameter path: The source file.
  /// - Returns: The thumbnail (8-bit, upright unless orientation is off, alpha kept).
  /// - Throws: ``ThumbnailError/decode(_:)`` when the source is not a complete, valid image;
  ///   ``ThumbnailError/outOfMemory(_:)`` when the thumbnail's buffers cannot be allocated.
  public func image(contentsOf path: String) throws(ThumbnailError) -> Image {
    try render(FileSource(file: path, limits: options.limits), flattenAlpha: false).image
  }

  /// The thumbnail of an image in memory as pixels.
  /// - Parameter bytes: A PNG, JPEG, WebP, GIF, HEIC or AVIF file's bytes.
  /// - Returns: The thumbnail (8-bit, upright unless orientation is off, alpha kept).
  /// - Throws: ``ThumbnailError/decode(_:)`` when the bytes are not a complete, valid image.
  public func image(from bytes: some ContiguousBytes) throws(ThumbnailError) -> Image {
    try render(MemorySource(bytes: bytes, limits: options.limits), flattenAlpha: false).image
  }

  /// Encodes the thumbnail of an image in memory and writes it atomically to `path`.
  /// - Parameters:
  ///   - bytes: A PNG, JPEG, WebP, GIF, HEIC or AVIF file's bytes.
  ///   - path: The destination file; its directory must exist.
  /// - Returns: What was written (`source` is `nil`, `reused` is `false`).
  /// - Throws: ``ThumbnailError/decode(_:)`` for an invalid source (nothing is written),
  ///   ``ThumbnailError/encode(_:)`` or ``ThumbnailError/write(_:)`` when encoding or writing fails
  ///   (nothing is left at `path`).
  public func writeThumbnail(of bytes: some ContiguousBytes, to path: String) throws(ThumbnailError)
    -> ThumbnailResult
  {
    let rendered = try render(MemorySource(bytes: bytes, limits: options.limits), flattenAlpha: nil)
    try ThumbnailWriter.write(
      rendered.image, as: rendered.format, stamp: nil, to: path,
      flushesToDisk: options.flushesToDisk)
    var result = ThumbnailResult(
      source: nil, path: path, width: rendered.image.width, height: rendered.image.height,
      format: rendered.format.format, reused: false)
    result.colorNote = rendered.image.colorSpace.ignoredProfile
    result.thumbHash = thumbHash(of: rendered.image)
    return result
  }

  /// Makes the thumbnail file next to an image file (or under ``ThumbnailOptions/outputDirectory``),
  /// or reuses the one already there when it is not older than the image and its stamp
  /// (``ThumbnailStamp``) says it was made from this very image (same name, size and modification
  /// time) with the same options. Reuse reads only the start of the thumbnail file; nothing is
  /// decoded.
  ///
  /// The file name follows ``ThumbnailNaming``; the file is written atomically. The result's
  /// ``ThumbnailResult/colorNote`` says when the source's colour profile could not be used.
  /// - Parameter path: The source file.
  /// - Returns: The thumbnail's path, size and format, and whether it was reused.
  /// - Throws: ``ThumbnailError/decode(_:)`` when the source is not a complete, valid image (nothing
  ///   is written); ``ThumbnailError/outOfMemory(_:)`` when the thumbnail's buffers cannot be
  ///   allocated; ``ThumbnailError/encode(_:)`` when the thumbnail cannot be written (no partial
  ///   file is left); ``ThumbnailError/occupied(path:by:)`` when a file imgfetch did not make holds
  ///   the thumbnail's name (it is left as it is).
  public func makeThumbnail(forFileAt path: String) throws(ThumbnailError) -> ThumbnailResult {
    try validate()
    guard let status = FileStatus.of(path) else {
      throw .decode(
        DecodeError(kind: .io, format: nil, message: ThumbnailWriter.systemError(), path: path))
    }
    let reuse = ThumbnailReuse(source: path, status: status, options: options)
    if !options.remakesCurrentThumbnails, let existing = try reuse.existingThumbnail() { return existing }
    let rendered = try render(FileSource(file: path, limits: options.limits), flattenAlpha: nil)
    let format = rendered.format
    let target = try target(forSource: path, format: format.format)
    let stamp = ThumbnailStamp(
      key: reuse.key(for: format), width: rendered.image.width, height: rendered.image.height)
    try ThumbnailWriter.write(
      rendered.image, as: format, stamp: stamp, to: target, flushesToDisk: options.flushesToDisk,
      createsFolders: createsFolders, replacesUnstampedFiles: options.replacesUnstampedFiles,
      exif: keptExif(ofFileAt: path),
      templated: options.nameTemplate != nil)
    var result = ThumbnailResult(
      source: path, path: target, width: rendered.image.width, height: rendered.image.height,
      format: format.format, reused: false)
    result.colorNote = rendered.image.colorSpace.ignoredProfile
    result.thumbHash = thumbHash(of: rendered.image)
    return result
  }

  /// Writes a thumbnail rendered elsewhere as the thumbnail of the file now at `path`: the name
  /// ``ThumbnailNaming`` gives, a stamp made from the file's current size and modification time and
  /// these options (so ``makeThumbnail(forFileAt:)`` reuses it later), written atomically.
  ///
  /// For a ``ThumbnailStream`` driven by a download: the download's decode renders the thumbnail,
  /// and this writes it once the file is in place.
  /// - Parameters:
  ///   - image: The rendering, with these options, of the file at `path` (``ThumbnailStream``'s
  ///     result). Its format is resolved from its alpha; alpha is composited over white if the
  ///     options force JPEG.
  ///   - path: The source file, as it now is.
  /// - Returns: What was written (`reused` is `false`).
  /// - Throws: ``ThumbnailError/decode(_:)`` (`io`) when the file's status cannot be read,
  ///   ``ThumbnailError/outOfMemory(_:)`` when flattening alpha cannot allocate,
  ///   ``ThumbnailError/encode(_:)`` or ``ThumbnailError/write(_:)`` when writing fails,
  ///   ``ThumbnailError/occupied(path:by:)`` when a file imgfetch did not make holds the name.
  public func writeThumbnail(_ image: Image, forFileAt path: String) throws(ThumbnailError) -> ThumbnailResult {
    try validate()
    let status: FileStatus
    do { status = try FileStatus(path: path) } catch {
      throw .decode(DecodeError(kind: .io, format: nil, message: error.message, path: path))
    }
    let format = options.format.resolved(hasAlpha: image.hasAlpha)
    var pixels = image
    if image.hasAlpha && !format.storesAlpha {
      do {
        pixels = try PremultipliedAlpha.flattened(
          try PremultipliedAlpha.premultiplied(image), over: options.background)
      } catch {
        throw .outOfMemory(DecodeError(kind: error.kind, format: nil, message: error.message, path: path))
      }
      pixels.colorSpace = image.colorSpace
    }
    let reuse = ThumbnailReuse(source: path, status: status, options: options)
    let target = try target(forSource: path, format: format.format)
    let stamp = ThumbnailStamp(key: reuse.key(for: format), width: pixels.width, height: pixels.height)
    try ThumbnailWriter.write(
      pixels, as: format, stamp: stamp, to: target, flushesToDisk: options.flushesToDisk,
      createsFolders: createsFolders, replacesUnstampedFiles: options.replacesUnstampedFiles,
      exif: keptExif(ofFileAt: path),
      templated: options.nameTemplate != nil)
    var result = ThumbnailResult(
      source: path, path: target, width: pixels.width, height: pixels.height, format: format.format, reused: false)
    result.colorNote = image.colorSpace.ignoredProfile
    result.thumbHash = thumbHash(of: pixels)
    return result
  }

  // MARK: - Steps

  /// The plan for a source with this header.
  func plan(for header: ImageHeader) -> ThumbnailPlan {
    ThumbnailPlan(
      sourceWidth: header.width, sourceHeight: header.height, orientation: header.orientation, format: header.format,
      options: options, shrinksOnLoad: header.shrinksOnLoad)
  }

  /// Probe, plan, then decode with shrink-on-load and render, row by row (``ThumbnailStream``).
  /// - Parameter flattenAlpha: `false` keeps alpha; `nil` flattens exactly when the resolved format is JPEG.
  func render(_ source: some ThumbnailSource, flattenAlpha: Bool?) throws(ThumbnailError) -> (
    image: Image, format: any ImageEncoding
  ) {
    try validate()
    let header = try decoding { () throws(DecodeError) in try source.probe() }
    let format = options.format.resolved(hasAlpha: header.hasAlpha)
    let plan = plan(for: header)
    // Upscaling can ask for more pixels than any decode would be allowed to produce.
    guard plan.width * plan.height <= options.limits.maxPixels else {
      throw .invalidOptions(
        "a \(plan.width)x\(plan.height) thumbnail is over the \(options.limits.maxPixels)-pixel limit")
    }
    if header.format == .png && header.isInterlaced {
      // libpng holds an interlaced image whole until its last pass whichever way it is read, and
      // its one-call read is the faster one; the pixels are the same.
      let decoded = try decoding { () throws(DecodeError) in
        try source.decode(options.sourceDecodeOptions())
      }
      let flatten = flattenAlpha ?? !format.storesAlpha
      do {
        var image = try ThumbnailRenderer.render(
          decoded, plan: plan, filter: options.filter, flatten: flatten, background: options.background)
        try options.colorSpace.apply(to: &image, pixels: decoded.colorSpace)
        return (image, format)
      } catch {
        // The renderer fails only for memory: not the source's fault.
        let located = DecodeError(kind: error.kind, format: .png, message: error.message, path: source.path)
        throw error.kind == .outOfMemory ? .outOfMemory(located) : .decode(located)
      }
    }
    return (try streamed(source, flattenAlpha: flattenAlpha), format)
  }

  /// Feeds the source in chunks to a ``/ImageCodecs/StreamingDecoder`` whose rows go through a
  /// ``ThumbnailStream``: the decoded image is never held whole.
  func streamed(_ source: some ThumbnailSource, flattenAlpha: Bool?)
    throws(ThumbnailError) -> Image
  {
    let path = source.path
    let stream = try ThumbnailStream(options: options, flattensAlphaForJPEG: flattenAlpha == nil, path: path)
    let decoder = StreamingDecoder(options: stream.decodeOptions, scaleForHeader: stream.scale(for:))
    do throws(ThumbnailError) {
      // The file the chunks come from, by its descriptor (never its path, which may name another
      // file by the time a hand-back reads it again).
      try source.forEachChunk(opened: { decoder.readsFile(descriptor: $0) }) { (chunk, isLast) throws(ThumbnailError) in
        do throws(DecodeError) {
          // The last bytes as the last: a JPEG's last rows are then decoded at once.
          if isLast { try decoder.appendLast(chunk) } else { try decoder.append(chunk) }
        } catch { throw .decode(error) }
        try stream.consumeRows(from: decoder)
      }
      do throws(DecodeError) { try decoder.finish() } catch { throw .decode(error) }
      return try stream.finish(from: decoder)
    } catch {
      // Said of the source, as a one-call decode's error is.
      guard case .decode(var located) = error, located.path == nil else { throw error }
      located.path = path
      throw .decode(located)
    }
  }

  /// The ThumbHash of the pixels written, when the options ask for one.
  func thumbHash(of written: Image) -> ThumbHash? { options.makesThumbHash ? ThumbHash(image: written) : nil }

  func validate() throws(ThumbnailError) {
    guard options.size.isValid else {
      throw .invalidOptions("size \(options.size) is outside 1...\(ThumbnailSize.maximumSide)")
    }
    if let template = options.nameTemplate {
      guard options.format.choice == template.format else {
        throw .invalidOptions(
          "the name template \(template) is \(template.format.rawValue), the format \(options.format.choice.rawValue)")
      }
      if template.isAbsolute && options.outputDirectory != nil {
        throw .invalidOptions("the name template \(template) is absolute; with an output folder it must be relative")
      }
    }
  }

  /// The source's Exif block to keep (``ThumbnailOptions/keepsExif``), upright when the
  /// orientation was applied; `nil` when not kept or the source has none.
  func keptExif(ofFileAt path: String) -> [UInt8]? {
    guard options.keepsExif, let exif = ThumbnailExif.read(fromFileAt: path) else { return nil }
    return options.appliesOrientation ? ThumbnailExif.upright(exif) : exif
  }

  /// Whether writing a thumbnail may create folders: under an output folder, or a template's.
  var createsFolders: Bool { options.outputDirectory != nil || options.nameTemplate?.text.contains("/") == true }

  /// The thumbnail's path for a source, refused when it is the source itself (a template such as
  /// `%s.jpg` met with `photo.jpg`).
  func target(forSource path: String, format: ImageFormat) throws(ThumbnailError) -> String {
    let target = try ThumbnailNaming.path(forSource: path, options: options, format: format)
    if options.nameTemplate != nil,
      ThumbnailDirectory.components(ofFile: target) == ThumbnailDirectory.components(ofFile: path)
    {
      throw .invalidOptions("the name template \(options.nameTemplate!) makes \(path) its own thumbnail")
    }
    return target
  }

  /// Runs a decoder step, wrapping its error.
  func decoding<T>(_ body: () throws(DecodeError) -> T) throws(ThumbnailError) -> T {
    do { return try body() } catch { throw .decode(error) }
  }
}
