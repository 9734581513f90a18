internal import CImageCodecs
public import FoundationEssentials

/// Decodes a PNG or JPEG from bytes pushed as they arrive, handing out rows as they are ready.
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
/// var image = try Image(allocatingWidth: size.width, height: size.height, pixelFormat: decoder.outputPixelFormat!)
/// _ = try decoder.readRows(into: &image)
/// ```
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
  public private(set) var options: DecodeOptions
  private let scaleForHeader: ((ImageHeader) -> JPEGScale)?
  private var engine: StreamingEngine
  private var failure: DecodeError?
  private var finished = false

  /// Creates a decoder.
  /// - Parameters:
  ///   - options: Pixel format, limits, strictness and JPEG scale, as for ``ImageDecoder/decode(_:options:)``.
  ///   - scaleForHeader: Asked once, when a JPEG's header is known, for the DCT scale to decode at
  ///     (otherwise `options.jpegScale` is used). Limits are checked on the header *and* the scaled output.
  public init(options: DecodeOptions = DecodeOptions(), scaleForHeader: ((ImageHeader) -> JPEGScale)? = nil) {
    self.options = options
    self.scaleForHeader = scaleForHeader
    self.engine = StreamingEngine(options: options)
  }

  /// The header, once parsed (nil before).
  public var header: ImageHeader? { engine.header }

  /// Output geometry after scaling (nil until the header is known).
  public var outputSize: OutputSize? { engine.outputSize }

  /// The pixel format rows are handed out in (nil until the header is known).
  public var outputPixelFormat: PixelFormat? { engine.outputPixelFormat }

  /// Rows decoded and not yet handed out by ``readRows(into:at:)``.
  public var availableRows: Int { engine.availableRows }

  /// Rows handed out so far.
  public var rowsRead: Int { engine.rowsRead }

  /// Feeds the next bytes, as they come off the network or a file.
  /// - Parameter bytes: The next bytes of the file (any length, including zero).
  /// - Throws: ``DecodeError`` as soon as the data is known to be bad or over a limit (a header over
  ///   the limits throws on the append that completes it). After a throw the decoder is spent: every
  ///   later call throws the same error.
  public func append(_ bytes: some ContiguousBytes) throws(DecodeError) {
    if let failure { throw failure }
    guard !finished else {
      throw fail(DecodeError(kind: .invalidArgument, format: nil, message: "append after finish"))
    }
    let outcome: Result<Void, DecodeError> = bytes.withUnsafeBytes { raw in
      do throws(DecodeError) {
        try engine.append(raw, scaleForHeader: scaleForHeader)
        return .success(())
      } catch { return .failure(error) }
    }
    if case .failure(let error) = outcome { throw fail(error) }
  }

  /// Copies decoded rows not yet handed out into `image`, starting at its row `firstRow`.
  ///
  /// `image` may be the full output (fill it as rows arrive) or a strip of a few rows reused
  /// (pass `firstRow: 0` each time). Its width and pixel format must equal the output's.
  /// - Parameters:
  ///   - image: Receives the rows.
  ///   - firstRow: The first row of `image` to write.
  /// - Returns: How many rows were copied: `min(availableRows, image.height - firstRow)`; 0 when more
  ///   bytes are needed (or the strip is full).
  /// - Throws: ``DecodeError/Kind/invalidArgument`` when the image does not match the output, or the
  ///   decoder's error if it failed.
  public func readRows(into image: inout Image, at firstRow: Int = 0) throws(DecodeError) -> Int {
    if let failure { throw failure }
    guard let size = engine.outputSize, let format = engine.outputPixelFormat else { return 0 }
    guard image.width == size.width, image.pixelFormat == format, firstRow >= 0, firstRow <= image.height else {
      throw DecodeError(
        kind: .invalidArgument, format: engine.header?.format,
        message:
          "rows are \(size.width) pixels of \(format), the image is \(image.width) of \(image.pixelFormat) (row \(firstRow) of \(image.height))"
      )
    }
    let count = Swift.min(engine.availableRows, image.height - firstRow)
    guard count > 0 else { return 0 }
    let rowBytes = size.width * format.bytesPerPixel
    let stride = image.bytesPerRow
    image.withUnsafeMutableBytes { pixels in
      engine.copyRows(count, rowBytes: rowBytes) { index, source in
        (pixels.baseAddress! + (firstRow + index) * stride).copyMemory(from: source, byteCount: rowBytes)
      }
    }
    if let orientation = engine.header?.orientation { image.orientation = orientation }
    return count
  }

  /// Call after the last byte: decodes what is left and checks the image is complete (IEND, EOI).
  /// Rows may still be read after it.
  /// - Throws: ``DecodeError`` exactly as the one-call decode of the same bytes does (`.truncated`
  ///   when the data ends early, and so on).
  public func finish() throws(DecodeError) {
    if let failure { throw failure }
    guard !finished else { return }
    finished = true
    do throws(DecodeError) { try engine.finish(scaleForHeader: scaleForHeader) } catch { throw fail(error) }
  }

  private func fail(_ error: DecodeError) -> DecodeError {
    failure = error
    engine.release()
    return error
  }
}

/// The simple engine: keeps the bytes, finds the header as soon as it is complete, and decodes
/// everything at `finish()` with the one-call decoder (so the verdict is the full decode's by
/// construction).
struct StreamingEngine {
  let options: DecodeOptions
  var bytes: [UInt8] = []
  var header: ImageHeader?
  var outputSize: StreamingDecoder.OutputSize?
  var outputPixelFormat: PixelFormat?
  var scale: JPEGScale
  var decoded: Image?
  var rowsRead = 0

  init(options: DecodeOptions) {
    self.options = options
    self.scale = options.jpegScale
  }

  var availableRows: Int { decoded.map { $0.height - rowsRead } ?? 0 }

  mutating func release() {
    bytes = []
    decoded = nil
  }

  /// Whether `bytes` could still become a PNG or JPEG signature.
  private var signatureUndecided: Bool {
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
    if bytes.count < png.count && bytes.elementsEqual(png.prefix(bytes.count)) { return true }
    if bytes.count < jpeg.count && bytes.elementsEqual(jpeg.prefix(bytes.count)) { return true }
    return false
  }

  mutating func append(_ raw: UnsafeRawBufferPointer, scaleForHeader: ((ImageHeader) -> JPEGScale)?)
    throws(DecodeError)
  {
    bytes.append(contentsOf: raw)
    if header == nil && !raw.isEmpty { try findHeader(scaleForHeader: scaleForHeader) }
  }

  private mutating func findHeader(scaleForHeader: ((ImageHeader) -> JPEGScale)?) throws(DecodeError) {
    if signatureUndecided { return }
    let found: ImageHeader
    do throws(DecodeError) {
      found = try ImageDecoder.probe(bytes, limits: options.limits)
    } catch  where error.kind == .truncated {
      return  // the header is not complete yet
    }
    var scaled = options
    if found.format == .jpeg, let scaleForHeader { scaled.jpegScale = scaleForHeader(found) }
    let output = try ImageDecoder.outputGeometry(bytes, options: scaled)
    header = found
    scale = scaled.jpegScale
    outputSize = StreamingDecoder.OutputSize(width: output.width, height: output.height)
    outputPixelFormat = output.pixelFormat
  }

  mutating func finish(scaleForHeader: ((ImageHeader) -> JPEGScale)?) throws(DecodeError) {
    if header == nil { try findHeader(scaleForHeader: scaleForHeader) }
    var scaled = options
    scaled.jpegScale = scale
    let image = try ImageDecoder.decode(bytes, options: scaled)
    bytes = []
    decoded = image
    outputSize = StreamingDecoder.OutputSize(width: image.width, height: image.height)
    outputPixelFormat = image.pixelFormat
  }

  mutating func copyRows(_ count: Int, rowBytes: Int, _ copy: (Int, UnsafeRawPointer) -> Void) {
    guard let decoded else { return }
    decoded.withUnsafeBytes { pixels in
      for index in 0..<count {
        copy(index, pixels.baseAddress! + (rowsRead + index) * decoded.bytesPerRow)
      }
    }
    rowsRead += count
    if rowsRead == decoded.height { self.decoded = nil }
  }
}

extension ImageDecoder {
  /// The output geometry and pixel format a decode of `bytes` with `options` produces (header only).
  static func outputGeometry(_ bytes: [UInt8], options: DecodeOptions) throws(DecodeError)
    -> (width: Int, height: Int, pixelFormat: PixelFormat)
  {
    try withDecoder(.memory(bytes), options: options) { (_, info) throws(DecodeError) in
      guard let format = PixelFormat(layout: info.output_layout) else {
        throw DecodeError(kind: .invalidArgument, format: ImageFormat(code: info.format), message: "no output layout")
      }
      return (Int(info.output_width), Int(info.output_height), format)
    }
  }

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
      return ImageHeader(info)
    }
  }
}
