public import ImageCodecs

/// Makes a thumbnail from rows as a ``/ImageCodecs/StreamingDecoder`` hands them out, so the source image is
/// never held whole: each decoded row (JPEG at the plan's DCT scale, PNG at full size) goes through
/// the integer box shrink as it arrives, and only the box-shrunk image — at most about four times
/// the thumbnail's size on each side — is kept for the final filter.
///
/// The driver owns the decoder and feeds it (from a file, or from a download as it arrives, so that
/// the download's validating decode *is* the thumbnail's decode):
///
/// ```swift
/// let stream = try ThumbnailStream(options: ThumbnailOptions(size: .longestSide(256)))
/// let decoder = StreamingDecoder(options: stream.decodeOptions, scaleForHeader: stream.scale(for:))
/// for chunk in chunks {
///   try decoder.append(chunk)
///   try stream.consumeRows(from: decoder)
/// }
/// try decoder.finish()
/// let thumbnail = try stream.finish(from: decoder)   // stream.format says how to encode it
/// ```
///
/// Memory: a strip of at most 16 decoded rows (about 1 MiB at most), one row of 32-bit column
/// sums, and the box-shrunk image. (An interlaced PNG is held whole by the decoder until its last
/// pass; the thumbnail side still holds only the above.) The pixels are exactly those of
/// ``Thumbnailer/image(contentsOf:)`` for the same file and options.
///
/// Errors name the source when the stream is given its ``path``: the decoder's verdict is
/// ``ThumbnailError/decode(_:)``; the stream's own buffers failing to allocate is
/// ``ThumbnailError/outOfMemory(_:)``, which is not the source's fault.
///
/// Not thread-safe: one caller (a queue, a task) at a time.
public final class ThumbnailStream {
  /// The thumbnail's options.
  public let options: ThumbnailOptions
  /// The source file the bytes come from, named by every error this stream throws (`nil`: bytes
  /// with no file, or a caller that names the source itself).
  public let path: String?
  /// Whether alpha is composited over white when the resolved format is JPEG (what a thumbnail
  /// file gets); otherwise alpha is kept.
  public let flattensAlphaForJPEG: Bool
  /// The plan, once the decoder knows the header.
  public private(set) var plan: ThumbnailPlan?
  /// The format the thumbnail is encoded in, once the header is known (JPEG for opaque sources,
  /// PNG for sources with alpha, unless the options name one).
  public private(set) var format: (any ImageEncoding)?

  private var refusal: ThumbnailError?
  private var shrinker: BoxShrinker?
  private var strip: Image?
  private var boxed: Image?
  private var rowsTaken = 0
  private var boxedRows = 0
  private var decodedHeight = 0

  /// Creates a stream for one image.
  /// - Parameters:
  ///   - options: Size, fit, filter, format and limits.
  ///   - flattensAlphaForJPEG: See ``flattensAlphaForJPEG``; `true` by default.
  ///   - path: The source file, for the errors' messages (see ``path``); `nil` by default.
  /// - Throws: ``ThumbnailError/invalidOptions(_:)`` for a size outside the accepted range.
  public init(options: ThumbnailOptions, flattensAlphaForJPEG: Bool = true, path: String? = nil)
    throws(ThumbnailError)
  {
    guard options.size.isValid else {
      throw .invalidOptions("size \(options.size) is outside 1...\(ThumbnailSize.maximumSide)")
    }
    self.options = options
    self.flattensAlphaForJPEG = flattensAlphaForJPEG
    self.path = path
  }

  /// The options to create the ``/ImageCodecs/StreamingDecoder`` with: 8-bit source channels, the thumbnail's
  /// limits, strict (a thumbnail is made only of a complete, valid image).
  public var decodeOptions: DecodeOptions {
    options.sourceDecodeOptions()
  }

  /// The DCT scale for a JPEG with this header: pass this method as the decoder's `scaleForHeader`.
  /// - Parameter header: The source's header.
  /// - Returns: The plan's shrink-on-load scale.
  public func scale(for header: ImageHeader) -> JPEGScale { plan(for: header).jpegScale }

  /// Takes every row the decoder has ready into the shrink. Call after each `append`.
  /// - Parameter decoder: The decoder, created with ``decodeOptions`` and ``scale(for:)``.
  /// - Throws: ``ThumbnailError/decode(_:)`` with the decoder's error; ``ThumbnailError/outOfMemory(_:)``
  ///   when the stream's buffers cannot be allocated; ``ThumbnailError/invalidOptions(_:)`` for an
  ///   upscaled thumbnail over the pixel limit.
  public func consumeRows(from decoder: StreamingDecoder) throws(ThumbnailError) {
    if let refusal { throw refusal }
    if boxed == nil {
      guard let header = decoder.header, let size = decoder.outputSize, let pixelFormat = decoder.outputPixelFormat
      else { return }
      do { try start(plan(for: header), size: size, pixelFormat: pixelFormat) } catch {
        refusal = error
        throw error
      }
    }
    while strip != nil {
      let count: Int
      do { count = try decoder.readRows(into: &strip!, at: 0) } catch {
        let failure = ThumbnailError.decode(located(error))
        refusal = failure
        throw failure
      }
      if count == 0 { break }
      do { try take(count) } catch {
        let failure = ownFailure(error)
        refusal = failure
        throw failure
      }
    }
  }

  /// Takes the last rows and renders the thumbnail. Call after the decoder's `finish()` succeeded.
  /// - Parameter decoder: The decoder.
  /// - Returns: The thumbnail: upright unless orientation is off, alpha composited over white when
  ///   ``format`` is JPEG and ``flattensAlphaForJPEG`` is set, in the colour space the options ask
  ///   for (converted to sRGB after the shrink, by default; its ``/ImageCodecs/Image/colorSpace``
  ///   says which, and why a profile was ignored).
  /// - Throws: As ``consumeRows(from:)`` (``ThumbnailError/outOfMemory(_:)`` also for the final
  ///   filter's buffers); ``ThumbnailError/decode(_:)`` of kind ``/ImageCodecs/DecodeError/Kind/truncated``
  ///   if the decoder handed out fewer rows than its output has.
  public func finish(from decoder: StreamingDecoder) throws(ThumbnailError) -> Image {
    try consumeRows(from: decoder)
    let finished: Image?
    do { finished = try finishedBoxedImage() } catch { throw ownFailure(error) }
    guard let plan, let format, let shrunk = finished else {
      throw .decode(
        located(
          DecodeError(
            kind: .truncated, format: decoder.header?.format,
            message: "the decoder delivered \(rowsTaken) of \(decodedHeight) rows")))
    }
    let flatten = flattensAlphaForJPEG && !format.storesAlpha
    do {
      var thumbnail = try ThumbnailRenderer.finish(
        shrunk, plan: plan, filter: options.filter, flatten: flatten, background: options.background)
      try options.colorSpace.apply(to: &thumbnail, pixels: decoder.outputColorSpace ?? .sRGB)
      return thumbnail
    } catch {
      throw ownFailure(DecodeError(kind: error.kind, format: decoder.header?.format, message: error.message))
    }
  }

  // MARK: - Steps

  /// Plans (once) from the header; an upscale over the pixel limit is remembered as the refusal.
  private func plan(for header: ImageHeader) -> ThumbnailPlan {
    if let plan { return plan }
    let made = ThumbnailPlan(
      sourceWidth: header.width, sourceHeight: header.height, orientation: header.orientation,
      format: header.format, options: options, shrinksOnLoad: header.shrinksOnLoad)
    plan = made
    format = options.format.resolved(hasAlpha: header.hasAlpha)
    // Upscaling can ask for more pixels than any decode would be allowed to produce.
    if made.width * made.height > options.limits.maxPixels {
      refusal = .invalidOptions(
        "a \(made.width)x\(made.height) thumbnail is over the \(options.limits.maxPixels)-pixel limit")
    }
    return made
  }

  /// Allocates the strip, the shrinker and the box-shrunk image for the decoder's output.
  private func start(_ plan: ThumbnailPlan, size: StreamingDecoder.OutputSize, pixelFormat: PixelFormat)
    throws(ThumbnailError)
  {
    if let refusal { throw refusal }
    do throws(DecodeError) {
      let (factorX, factorY) = (plan.horizontal.boxFactor, plan.vertical.boxFactor)
      let rowBytes = size.width * pixelFormat.bytesPerPixel
      strip = try Image(
        width: size.width, height: max(1, min(16, (1 << 20) / max(1, rowBytes))), pixelFormat: pixelFormat)
      if factorX > 1 || factorY > 1 {
        shrinker = try BoxShrinker(
          width: size.width, pixelFormat: pixelFormat, factorX: factorX, factorY: factorY, premultiplying: true)
      }
      boxed = try Image(
        width: (size.width + factorX - 1) / factorX, height: (size.height + factorY - 1) / factorY,
        pixelFormat: pixelFormat)
      decodedHeight = size.height
    } catch {
      throw ownFailure(error)
    }
  }

  /// The error with this stream's source named (unless it names one already).
  private func located(_ error: DecodeError) -> DecodeError {
    var located = error
    if located.path == nil { located.path = path }
    return located
  }

  /// A failure of the stream's own work (its buffers): out of memory is not the source's fault.
  private func ownFailure(_ error: DecodeError) -> ThumbnailError {
    error.kind == .outOfMemory ? .outOfMemory(located(error)) : .decode(located(error))
  }

  /// Passes the first `count` rows of the strip through the box shrink (or premultiplies them
  /// straight into the kept image when there is no box shrink).
  private func take(_ count: Int) throws(DecodeError) {
    guard let strip, var target = boxed.take() else { return }
    defer { boxed = target }
    let (stripStride, boxedStride, boxedHeight) = (strip.bytesPerRow, target.bytesPerRow, target.height)
    let (width, pixelFormat) = (strip.width, strip.pixelFormat)
    let rows = min(count, decodedHeight - rowsTaken)
    var made = boxedRows
    try strip.withUnsafeBytes { (source) throws(DecodeError) in
      try target.withUnsafeMutableBytes { destination in
        let base = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let out = destination.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for index in 0..<max(0, rows) {
          let row = base + index * stripStride
          if let shrinker {
            if shrinker.add(row), made < boxedHeight {
              shrinker.emitRow(into: out + made * boxedStride)
              made += 1
            }
          } else if made < boxedHeight {
            let copy = out + made * boxedStride
            copy.update(from: row, count: width * pixelFormat.bytesPerPixel)
            PremultipliedAlpha.premultiply(row: copy, count: width, format: pixelFormat)
            made += 1
          }
        }
      }
    }
    boxedRows = made
    rowsTaken += count
  }

  /// The box-shrunk image once every decoded row went in (the last partial block included).
  private func finishedBoxedImage() throws(DecodeError) -> Image? {
    guard rowsTaken >= decodedHeight, var target = boxed.take() else { return nil }
    if let shrinker, shrinker.hasPendingRows, boxedRows < target.height {
      let offset = boxedRows * target.bytesPerRow
      try target.withUnsafeMutableBytes {
        shrinker.emitRow(into: $0.baseAddress!.assumingMemoryBound(to: UInt8.self) + offset)
      }
      boxedRows += 1
    }
    strip = nil
    shrinker = nil
    return boxedRows == target.height ? target : nil
  }
}
