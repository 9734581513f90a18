internal import CImageCodecs
public import FoundationEssentials
internal import CLCMS2Adapter

/// Decodes a PNG, JPEG, WebP, GIF, HEIC or AVIF from bytes pushed as they arrive, handing out rows as they are ready.
///
/// The verdict is the full decode's: the same options, limits and strictness, the same accept or
/// reject with the same ``DecodeError/Kind``. Feed the bytes with ``append(_:)`` (any chunking),
/// take rows with ``readRows(into:at:)`` whenever you like, and call ``finish()`` after the last byte.
///
/// ```swift
/// let decoder = StreamingDecoder(options: DecodeOptions(jpegScale: .eighth))
/// for chunk in chunks { try decoder.append(chunk) }
/// try decoder.finish()
/// let size = decoder.outputSize!
/// var image = try Image(width: size.width, height: size.height, pixelFormat: decoder.outputPixelFormat!)
/// _ = try decoder.readRows(into: &image)
/// ```
///
/// Colour: the rows are in the source's colour space (``header``'s ``ImageHeader/colorSpace``), a
/// CMYK JPEG's converted to RGB through its profile when it has a usable one; with
/// ``DecodeOptions/colorSpace`` `.sRGB` every row handed out is converted to sRGB (a gray output of a
/// colour source excepted: it is the luma of the stored numbers, see ``outputColorSpace``).
///
/// WebP: a still image goes through libwebp's incremental decoder as the bytes arrive, and its rows
/// are handed out together once it is decoded (libwebp decodes into one image buffer); a file whose
/// header announces an EXIF chunk (which follows the image data) has its ``header`` once that chunk
/// is in, so that the orientation is known; an animation is decoded once every byte is there.
///
/// GIF: the header (the image's size, its frames counted and each held to the limits) is known once
/// the trailer has arrived, and the file is decoded (every frame) once ``finish()`` says every byte
/// is in; its rows are then handed out together. A file over a limit is refused as soon as the
/// bytes show it.
///
/// Not thread-safe: one caller (a queue, a task) at a time.
public final class StreamingDecoder {
  /// The decoded output's geometry, after DCT scaling.
  public struct OutputSize: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int

    /// Creates a size.
    /// - Parameters:
    ///   - width: Width in pixels.
    ///   - height: Height in pixels.
    public init(width: Int, height: Int) {
      self.width = width
      self.height = height
    }
  }

  /// The options every decode step uses (the JPEG scale may be replaced by `scaleForHeader`).
  public let options: DecodeOptions
  private let scaleForHeader: ((ImageHeader) -> JPEGScale)?
  private let stream: UnsafeMutablePointer<imc_stream>?
  private var failure: DecodeError?
  private var finished = false

  /// The header, once parsed (nil before).
  public private(set) var header: ImageHeader?

  /// Output geometry after scaling (nil until the header is known).
  public private(set) var outputSize: OutputSize?

  /// The pixel format rows are handed out in (nil until the header is known).
  public private(set) var outputPixelFormat: PixelFormat?

  /// Rows handed out so far.
  public private(set) var rowsRead = 0

  /// What the numbers of the rows handed out mean (nil until the output is known): the source's
  /// colour space, or sRGB when converted (as ``Image/colorSpace`` says for a one-call decode).
  public private(set) var outputColorSpace: ColorSpace?

  /// A CMYK JPEG's row converter (kept alive while the stream decodes), or why there is none.
  private var cmykConverter: ColorTransform.Outcome?
  /// The transform rows go through on their way out, with `.sRGB`.
  private var rowTransform: ColorTransform?

  /// ``appendLast(_:)`` was called: no bytes may follow.
  private var appendedLast = false

  /// Creates a decoder.
  /// - Parameters:
  ///   - options: Pixel format, limits, strictness and JPEG scale, as for ``ImageDecoder/decode(_:options:)``.
  ///   - scaleForHeader: Asked once, when a JPEG's header is known, for the DCT scale to decode at
  ///     (otherwise `options.jpegScale` is used). Limits are checked on the header *and* the scaled output.
  public init(options: DecodeOptions = DecodeOptions(), scaleForHeader: ((ImageHeader) -> JPEGScale)? = nil) {
    self.options = options
    self.scaleForHeader = scaleForHeader
    var request = options.cRequest
    stream = imc_stream_create(&request)
  }

  deinit { imc_stream_destroy(stream) }

  /// Says, before the first ``append(_:)``, that the bytes to come are the regular file open at
  /// `descriptor`. A JPEG decoded by imgfetch's own 1/8-scale or progressive decoder then keeps none
  /// of them in memory: should libjpeg have to decode from the start after all (damaged data, an
  /// unusual end), it reads that file again, through the decoder's own duplicate of the descriptor
  /// and with `pread` (no file offset moves), never by its path: a file renamed over the path
  /// meanwhile, or a FIFO put in its place, is not read. The caller may close its descriptor after
  /// the call. Without it the decoder keeps a JPEG's bytes (up to 32 MiB) while that decoder may run
  /// (a progressive JPEG's until its last scan is read); the progressive decoder takes the scans
  /// that begin while every byte is kept (past 32 MiB, libjpeg takes the rest).
  package func readsFile(descriptor: Int32) {
    guard let stream else { return }
    if imc_stream_set_source_file(stream, descriptor) != IMC_OK { imc_stream_set_source_file(stream, -1) }
  }

  /// ``readsFile(descriptor:)`` for the fuzz package (`FuzzJPEGEngine` streams as a file's thumbnail
  /// does) and the tests that replace the file meanwhile, which cannot see `package` API. Not part of
  /// the API.
  @_spi(Fuzzing) public func fuzzingReadsFile(descriptor: Int32) { readsFile(descriptor: descriptor) }

  /// Rows decoded and queued, not yet handed out by ``readRows(into:at:)`` (reading decodes more).
  public var availableRows: Int { stream.map { Int(imc_stream_rows_available($0)) } ?? 0 }

  /// Feeds the next bytes, as they come off the network or a file.
  ///
  /// Decodes what the bytes allow into a bounded queue of rows (about 1 MiB); when the queue is
  /// full, the bytes wait until ``readRows(into:at:)`` takes rows. Read rows after each append to keep
  /// memory bounded.
  /// - Parameter bytes: The next bytes of the file (any length, including zero).
  /// - Throws: ``DecodeError`` as soon as the data is known to be bad or over a limit (a header over
  ///   the limits throws on the append that completes it). After a throw the decoder is spent: every
  ///   later call throws the same error.
  public func append(_ bytes: some ContiguousBytes) throws(DecodeError) {
    try append(bytes, last: false)
  }

  /// Feeds the last bytes of the file: as ``append(_:)``, and the decoder knows that no more
  /// follow, so a JPEG's last rows are decoded from these bytes at once. ``finish()`` must still
  /// be called; no bytes may be appended after this.
  public func appendLast(_ bytes: some ContiguousBytes) throws(DecodeError) {
    try append(bytes, last: true)
  }

  private func append(_ bytes: some ContiguousBytes, last: Bool) throws(DecodeError) {
    let stream = try live()
    guard !finished, !appendedLast else {
      throw fail(DecodeError(kind: .invalidArgument, format: header?.format, message: "append after finish"))
    }
    appendedLast = last
    var status = imc_status()
    let code = bytes.withUnsafeBytes { raw in
      let start = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
      return last
        ? imc_stream_append_last(stream, start, raw.count, &status)
        : imc_stream_append(stream, start, raw.count, &status)
    }
    try check(code, status)
    try advance(stream)
  }

  /// Copies decoded rows not yet handed out into `image`, starting at its row `firstRow`, decoding
  /// more from the bytes already appended as the queue empties.
  ///
  /// `image` may be the full output (fill it as rows arrive) or a strip of a few rows reused
  /// (pass `firstRow: 0` each time). Its width and pixel format must equal the output's.
  /// - Parameters:
  ///   - image: Receives the rows.
  ///   - firstRow: The first row of `image` to write.
  /// - Returns: How many rows were copied (at most `image.height - firstRow`); 0 when more bytes are
  ///   needed, the image is complete, or the strip is full.
  /// - Throws: ``DecodeError/Kind/invalidArgument`` when the image does not match the output, or the
  ///   decoder's error if decoding the queued bytes failed.
  public func readRows(into image: inout Image, at firstRow: Int = 0) throws(DecodeError) -> Int {
    let stream = try live()
    guard let size = outputSize, let format = outputPixelFormat else { return 0 }
    guard image.width == size.width, image.pixelFormat == format, firstRow >= 0, firstRow <= image.height else {
      throw DecodeError(
        kind: .invalidArgument, format: header?.format,
        message:
          "rows are \(size.width) pixels of \(format), the image is \(image.width) of \(image.pixelFormat) (row \(firstRow) of \(image.height))"
      )
    }
    guard image.height > firstRow else { return 0 }
    var status = imc_status()
    var copied = 0
    let stride = image.bytesPerRow
    let room = image.height - firstRow
    let code = try image.withUnsafeMutableBytes { pixels in
      imc_stream_read_rows(
        stream, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self) + firstRow * stride, stride, room, &copied,
        &status)
    }
    try check(code, status)
    if let rowTransform, copied > 0 {
      let width = image.width
      try image.withUnsafeMutableBytes { pixels in
        rowTransform.apply(
          pixels.baseAddress!.assumingMemoryBound(to: UInt8.self) + firstRow * stride, stride: stride, width: width,
          rows: copied)
      }
    }
    rowsRead += copied
    if let orientation = header?.orientation { image.orientation = orientation }
    if let outputColorSpace { image.colorSpace = outputColorSpace }
    return copied
  }

  /// Call after the last byte: decodes what is left and checks the image is complete (IEND, EOI).
  /// Rows not read yet stay queued (the queue grows as needed) and may be read after it.
  /// - Throws: ``DecodeError`` exactly as the one-call decode of the same bytes does (`.truncated`
  ///   when the data ends early, and so on).
  public func finish() throws(DecodeError) {
    let stream = try live()
    guard !finished else { return }
    finished = true
    var status = imc_status()
    try check(imc_stream_finish(stream, &status), status)
    if imc_stream_state(stream) == Int32(IMC_STREAM_HEADER_READY) {
      try advance(stream)  // the header completed only now: choose the scale, then finish again
      try check(imc_stream_finish(stream, &status), status)
    }
    try advance(stream)
  }

  private func live() throws(DecodeError) -> UnsafeMutablePointer<imc_stream> {
    if let failure { throw failure }
    guard let stream else {
      throw fail(DecodeError(kind: .outOfMemory, format: nil, message: "cannot allocate a decoder"))
    }
    return stream
  }

  private func check(_ code: Int32, _ status: imc_status) throws(DecodeError) {
    guard code != IMC_OK else { return }
    var info = imc_info()
    if let stream { imc_stream_info(stream, &info) }
    throw fail(DecodeError(status: status, format: info.format, path: nil))
  }

  /// Takes the header and output facts as they become known; starts a JPEG at its scale.
  private func advance(_ stream: UnsafeMutablePointer<imc_stream>) throws(DecodeError) {
    var state = imc_stream_state(stream)
    if state == Int32(IMC_STREAM_HEADER_READY) {
      var info = imc_info()
      imc_stream_info(stream, &info)
      let found = header(of: stream, info)
      header = found
      attachCMYKConverter(stream, found)
      let scale = scaleForHeader?(found) ?? options.jpegScale
      var status = imc_status()
      try check(imc_stream_start(stream, Int32(scale.eighths), &status), status)
      state = imc_stream_state(stream)
    }
    if outputSize == nil && (state == Int32(IMC_STREAM_DECODING) || state == Int32(IMC_STREAM_DONE)) {
      var info = imc_info()
      imc_stream_info(stream, &info)
      if header == nil { header = header(of: stream, info) }
      outputSize = OutputSize(width: Int(info.output_width), height: Int(info.output_height))
      outputPixelFormat = PixelFormat(layout: info.output_layout)
      if let header, let format = outputPixelFormat { chooseOutputColor(header, format) }
    }
  }

  private func header(of stream: UnsafeMutablePointer<imc_stream>, _ info: imc_info) -> ImageHeader {
    var color = imc_color()
    imc_stream_color(stream, &color)
    return ImageHeader(info, color: color, limits: options.limits)
  }

  /// A CMYK JPEG with a usable profile: its rows through an lcms2 transform (before the decode starts).
  private func attachCMYKConverter(_ stream: UnsafeMutablePointer<imc_stream>, _ header: ImageHeader) {
    guard header.colorSpace.model == .cmyk, header.colorSpace.iccProfile != nil else { return }
    // The output layout is chosen only when the decode starts; for CMYK it is the request's.
    let layout: PixelFormat =
      switch options.pixelFormat {
      case .rgba8: .rgba8
      case .gray8: .gray8
      default: .rgb8
      }
    var color = imc_color()
    imc_stream_color(stream, &color)
    let input = color.adobe_transform >= 0 ? Int32(IMC_PIXELS_CMYK8_INVERTED) : Int32(IMC_PIXELS_CMYK8)
    let made = ColorTransform.make(from: header.colorSpace, input: input, output: layout.transformLayout)
    if case .success(let transform) = made {
      imc_stream_set_cmyk_converter(
        stream, imc_transform_cmyk_row, UnsafeMutableRawPointer(transform.pointer), layout.layout)
    }
    cmykConverter = made
  }

  /// The rows' colour space, and with `.sRGB` the transform that converts them.
  private func chooseOutputColor(_ header: ImageHeader, _ format: PixelFormat) {
    var space = ImageDecoder.pixelColorSpace(header.colorSpace, pixelFormat: format, cmyk: cmykConverter)
    if options.colorSpace == .sRGB && !space.isSRGB {
      switch ColorTransform.make(from: space, input: format.transformLayout, output: format.transformLayout) {
      case .success(let transform):
        rowTransform = transform
        space = .sRGB(format.colorModel)
      case .failure(let reason):
        space = space.unspecified(note: "ICC profile ignored: \(reason)")
      }
    }
    outputColorSpace = space
  }

  private func fail(_ error: DecodeError) -> DecodeError {
    failure = error
    return error
  }
}

extension ImageDecoder {
  /// Strict validation without a pixel buffer: decodes every pixel, row by row, into one scratch
  /// row and keeps none, so memory grows with the width, not the area.
  /// - Parameters:
  ///   - path: The file's path.
  ///   - options: Limits, strictness and JPEG scale (the pixel format does not change the verdict).
  /// - Returns: The header of a file that decodes completely within the limits.
  /// - Throws: ``DecodeError`` (with `path` set) exactly as ``decode(contentsOf:options:)`` does.
  public static func validate(contentsOf path: String, options: DecodeOptions = DecodeOptions())
    throws(DecodeError) -> ImageHeader
  {
    try withDecoder(Source<[UInt8]>.file(path), options: options) { (decoder, info) throws(DecodeError) in
      var status = imc_status()
      if imc_decoder_validate(decoder, &status) != IMC_OK {
        throw DecodeError(status: status, format: info.format, path: nil)
      }
      return header(decoder, info, limits: options.limits)
    }
  }
}
