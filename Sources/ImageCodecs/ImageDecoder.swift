internal import CImageCodecs
public import FoundationEssentials
internal import CLCMS2Adapter
internal import SystemFiles

/// Decodes PNG, JPEG, WebP, GIF, HEIC and AVIF files into ``Image`` pixel buffers, strictly by
/// default: an image is returned only if every pixel decoded (an animated WebP or GIF: every frame;
/// its first is the image; a HEIF: its primary image, with its transformations applied).
/// The format comes from the magic bytes, never from a file name.
///
/// ```swift
/// let image = try ImageDecoder.decode(contentsOf: "photo.jpg")
/// print(image.width, image.height, image.pixelFormat)
///
/// var reused = image                       // decode many files into one buffer
/// try ImageDecoder.decode(contentsOf: "next.jpg", into: &reused)
/// ```
public enum ImageDecoder {
  /// Reads the header of an image in memory; no pixel is decoded.
  /// - Parameters:
  ///   - bytes: The file's bytes (`Data`, `[UInt8]`, …).
  ///   - limits: Limits the header must respect.
  /// - Returns: The header.
  /// - Throws: ``DecodeError`` when the bytes are not a valid PNG, JPEG, WebP, GIF, HEIC or
  ///   AVIF header or exceed the limits.
  public static func probe(_ bytes: some ContiguousBytes, limits: DecodeLimits = .standard) throws(DecodeError)
    -> ImageHeader
  {
    try withDecoder(.memory(bytes), options: DecodeOptions(limits: limits)) { decoder, info in
      header(decoder, info, limits: limits)
    }
  }

  /// Reads the header of an image file, reading only as far into the file as the header goes (a
  /// WebP whose header announces EXIF data: to that chunk, after the image data; an animated WebP:
  /// to its end, its frames counted; a GIF: to its trailer, its frames counted).
  /// - Parameters:
  ///   - path: The file's path.
  ///   - limits: Limits the header must respect.
  /// - Returns: The header.
  /// - Throws: ``DecodeError`` (with `path` set) when the file cannot be read or is not a valid image header.
  public static func probe(contentsOf path: String, limits: DecodeLimits = .standard) throws(DecodeError)
    -> ImageHeader
  {
    try withDecoder(Source<[UInt8]>.file(path), options: DecodeOptions(limits: limits)) { decoder, info in
      header(decoder, info, limits: limits)
    }
  }

  /// Decodes an image in memory.
  /// - Parameters:
  ///   - bytes: The file's bytes.
  ///   - options: Pixel format, limits, strictness and JPEG scale.
  /// - Returns: The decoded image, its ``Image/orientation`` taken from EXIF.
  /// - Throws: ``DecodeError`` when the data is not a complete, valid image within the limits.
  public static func decode(_ bytes: some ContiguousBytes, options: DecodeOptions = DecodeOptions())
    throws(DecodeError) -> Image
  {
    try decode(.memory(bytes), options: options)
  }

  /// Decodes an image file.
  /// - Parameters:
  ///   - path: The file's path.
  ///   - options: Pixel format, limits, strictness and JPEG scale.
  /// - Returns: The decoded image.
  /// - Throws: ``DecodeError`` (with `path` set) when the file is not a complete, valid image within the limits.
  public static func decode(contentsOf path: String, options: DecodeOptions = DecodeOptions()) throws(DecodeError)
    -> Image
  {
    try decode(Source<[UInt8]>.file(path), options: options)
  }

  /// Decodes an image in memory into an existing image's storage, reusing its allocation when it
  /// is large enough and not shared with another `Image`.
  /// - Parameters:
  ///   - bytes: The file's bytes.
  ///   - options: Pixel format, limits, strictness and JPEG scale.
  ///   - image: Receives the result. After a throw its pixels are unspecified (size and format may
  ///     already be the new ones); do not display it.
  /// - Throws: ``DecodeError`` as ``decode(_:options:)`` does.
  public static func decode(
    _ bytes: some ContiguousBytes, options: DecodeOptions = DecodeOptions(), into image: inout Image
  )
    throws(DecodeError)
  {
    try decode(.memory(bytes), options: options, into: &image)
  }

  /// Decodes an image file into an existing image's storage; see ``decode(_:options:into:)``.
  /// - Parameters:
  ///   - path: The file's path.
  ///   - options: Pixel format, limits, strictness and JPEG scale.
  ///   - image: Receives the result; unspecified pixels after a throw.
  /// - Throws: ``DecodeError`` as ``decode(contentsOf:options:)`` does.
  public static func decode(contentsOf path: String, options: DecodeOptions = DecodeOptions(), into image: inout Image)
    throws(DecodeError)
  {
    try decode(Source<[UInt8]>.file(path), options: options, into: &image)
  }
}

extension ImageDecoder {
  enum Source<Bytes: ContiguousBytes> {
    case memory(Bytes)
    case file(String)
  }

  static func withDecoder<Bytes: ContiguousBytes, Result>(
    _ source: Source<Bytes>, options: DecodeOptions,
    _ body: (UnsafeMutablePointer<imc_decoder>, imc_info) throws(DecodeError) -> Result
  ) throws(DecodeError) -> Result {
    var request = options.cRequest
    var info = imc_info()
    var status = imc_status()
    switch source {
    case .memory(let bytes):
      // The C decoder only borrows the bytes, so they must stay alive and pinned while it runs.
      let outcome: Swift.Result<Result, DecodeError> = bytes.withUnsafeBytes { raw in
        let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard let opened = imc_decoder_open_memory(base, raw.count, &request, &info, &status) else {
          return .failure(DecodeError(status: status, format: info.format, path: nil))
        }
        defer { imc_decoder_close(opened) }
        do throws(DecodeError) { return .success(try body(opened, info)) } catch { return .failure(error) }
      }
      return try outcome.get()
    case .file(let path):
      // Opened in Swift so a FIFO or device at the path can neither block nor be read: only a
      // regular file gets to the C decoder, which owns the descriptor from here on.
      let file: ReadableFile
      do { file = try ReadableFile(path: path) } catch {
        throw DecodeError(kind: .io, format: nil, message: error.message, path: path)
      }
      guard let decoder = imc_decoder_open_descriptor(file.takeDescriptor(), &request, &info, &status) else {
        throw DecodeError(status: status, format: info.format, path: path)
      }
      defer { imc_decoder_close(decoder) }
      do { return try body(decoder, info) } catch {
        var located = error
        located.path = path
        throw located
      }
    }
  }

  /// The output's pixel format and byte layout, from the open decoder's facts.
  static func outputLayout(_ info: imc_info) throws(DecodeError) -> (
    format: PixelFormat, bytesPerRow: Int, byteCount: Int
  ) {
    guard let format = PixelFormat(layout: info.output_layout),
      let size = Image.byteLayout(width: Int(info.output_width), height: Int(info.output_height), pixelFormat: format)
    else {
      throw DecodeError(kind: .invalidArgument, format: ImageFormat(code: info.format), message: "no output layout")
    }
    return (format, size.bytesPerRow, size.byteCount)
  }

  /// Within the pixel limits an image can still need more memory than the process may have (a
  /// ulimit, a container): that is an error for this image, not a reason to abort.
  static func outOfMemory(_ info: imc_info, _ byteCount: Int) -> DecodeError {
    DecodeError(
      kind: .outOfMemory, format: ImageFormat(code: info.format),
      message: "cannot allocate \(byteCount) bytes for the pixels")
  }

  /// Decodes every pixel into `image`, whose storage is unshared and laid out for the output.
  static func read(_ decoder: UnsafeMutablePointer<imc_decoder>, _ info: imc_info, bytesPerRow: Int, into image: inout Image)
    throws(DecodeError)
  {
    var status = imc_status()
    let code = try image.withUnsafeMutableBytes { pixels in
      imc_decoder_read(
        decoder, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), bytesPerRow, pixels.count, &status)
    }
    if code != IMC_OK { throw DecodeError(status: status, format: info.format, path: nil) }
  }

  /// The header, with the colour facts the decoder read beside it.
  static func header(_ decoder: UnsafeMutablePointer<imc_decoder>, _ info: imc_info, limits: DecodeLimits) -> ImageHeader {
    var color = imc_color()
    imc_decoder_color(decoder, &color)
    return ImageHeader(info, color: color, limits: limits)
  }

  /// Gray pixels of a colour source in sRGB: converted in colour, then made gray (Rec. 601 weights,
  /// as the decoder's own gray conversion).
  static func decodeGrayInSRGB<Bytes: ContiguousBytes>(_ source: Source<Bytes>, options: DecodeOptions)
    throws(DecodeError) -> Image?
  {
    guard options.pixelFormat == .gray8, options.colorSpace == .sRGB else { return nil }
    let found: ImageHeader =
      switch source {
      case .memory(let bytes): try probe(bytes, limits: options.limits)
      case .file(let path): try probe(contentsOf: path, limits: options.limits)
      }
    guard found.colorType.colorModel != .gray else { return nil }
    var colour = options
    colour.pixelFormat = .rgb8
    let image = try decode(source, options: colour)
    return try image.grayscale()
  }

  static func decode<Bytes: ContiguousBytes>(_ source: Source<Bytes>, options: DecodeOptions) throws(DecodeError)
    -> Image
  {
    if let gray = try decodeGrayInSRGB(source, options: options) { return gray }
    return try withDecoder(source, options: options) { (decoder, info) throws(DecodeError) in
      let header = header(decoder, info, limits: options.limits)
      let cmyk = cmykConverter(decoder, info, header)
      defer { withExtendedLifetime(cmyk) {} }
      let layout = try outputLayout(info)
      var image: Image
      do {  // the storage's binding ends here: the image's reference must be the only one, or the write below would copy it
        guard let storage = PixelStorage(reserving: layout.byteCount) else { throw outOfMemory(info, layout.byteCount) }
        image = Image(
          width: Int(info.output_width), height: Int(info.output_height), pixelFormat: layout.format,
          bytesPerRow: layout.bytesPerRow, orientation: ExifOrientation(exifValue: Int(info.orientation)),
          storage: storage)
      }
      try read(decoder, info, bytesPerRow: layout.bytesPerRow, into: &image)
      try finishColor(&image, header: header, cmyk: cmyk, options: options)
      return image
    }
  }

  /// For a CMYK JPEG with a usable profile: the transform its rows go through (set on the decoder).
  /// Its failure is the reason the plain formula is used instead.
  static func cmykConverter(_ decoder: UnsafeMutablePointer<imc_decoder>, _ info: imc_info, _ header: ImageHeader)
    -> ColorTransform.Outcome?
  {
    guard header.colorSpace.model == .cmyk, header.colorSpace.iccProfile != nil,
      let output = PixelFormat(layout: info.output_layout)
    else { return nil }
    var color = imc_color()
    imc_decoder_color(decoder, &color)
    let input = color.adobe_transform >= 0 ? Int32(IMC_PIXELS_CMYK8_INVERTED) : Int32(IMC_PIXELS_CMYK8)
    let made = ColorTransform.make(from: header.colorSpace, input: input, output: output.transformLayout)
    if case .success(let transform) = made {
      imc_decoder_set_cmyk_converter(
        decoder, imc_transform_cmyk_row, UnsafeMutableRawPointer(transform.pointer), output.layout)
    }
    return made
  }

  /// Labels the decoded pixels with their colour space, and converts them to sRGB when asked.
  static func finishColor(
    _ image: inout Image, header: ImageHeader, cmyk: ColorTransform.Outcome?, options: DecodeOptions
  ) throws(DecodeError) {
    image.colorSpace = pixelColorSpace(header.colorSpace, pixelFormat: image.pixelFormat, cmyk: cmyk)
    if options.colorSpace == .sRGB { try image.convertToSRGB() }
  }

  /// What decoded pixels' numbers mean: the file's space when the pixels are in its model; sRGB
  /// for a CMYK JPEG's (converted through its profile, or by the plain formula); the numbers said
  /// by nothing when a gray source became colour or the reverse.
  static func pixelColorSpace(_ file: ColorSpace, pixelFormat: PixelFormat, cmyk: ColorTransform.Outcome?)
    -> ColorSpace
  {
    if file.model == .cmyk {
      if case .failure(let reason) = cmyk { return file.unspecified(model: pixelFormat.colorModel, note: "ICC profile ignored: \(reason)") }
      return file.unspecified(model: pixelFormat.colorModel)
    }
    return file.model == pixelFormat.colorModel ? file : file.unspecified(model: pixelFormat.colorModel)
  }

  static func decode<Bytes: ContiguousBytes>(_ source: Source<Bytes>, options: DecodeOptions, into image: inout Image)
    throws(DecodeError)
  {
    if let gray = try decodeGrayInSRGB(source, options: options) {
      image = gray
      return
    }
    try withDecoder(source, options: options) { (decoder, info) throws(DecodeError) in
      let header = header(decoder, info, limits: options.limits)
      let cmyk = cmykConverter(decoder, info, header)
      defer { withExtendedLifetime(cmyk) {} }
      let layout = try outputLayout(info)
      guard
        image.reshape(
          width: Int(info.output_width), height: Int(info.output_height), pixelFormat: layout.format,
          bytesPerRow: layout.bytesPerRow, byteCount: layout.byteCount)
      else { throw outOfMemory(info, layout.byteCount) }
      image.orientation = ExifOrientation(exifValue: Int(info.orientation))
      try read(decoder, info, bytesPerRow: layout.bytesPerRow, into: &image)
      try finishColor(&image, header: header, cmyk: cmyk, options: options)
    }
  }
}

extension DecodeOptions {
  var cRequest: imc_request {
    var request = imc_request()
    request.want =
      switch pixelFormat {
      case .source: Int32(IMC_WANT_SOURCE)
      case .native: Int32(IMC_WANT_NATIVE)
      case .rgba8: Int32(IMC_WANT_RGBA8)
      case .rgb8: Int32(IMC_WANT_RGB8)
      case .gray8: Int32(IMC_WANT_GRAY8)
      }
    request.scale_eighths = Int32(jpegScale.eighths)
    request.lenient = strictness == .lenient ? 1 : 0
    request.max_scans = Int32(clamping: Swift.max(1, limits.maxJPEGScans))
    request.max_width = UInt32(clamping: Swift.max(1, limits.maxWidth))
    request.max_height = UInt32(clamping: Swift.max(1, limits.maxHeight))
    request.max_pixels = UInt64(Swift.max(1, limits.maxPixels))
    request.max_chunk_bytes = UInt64(Swift.max(1, limits.maxChunkBytes))
    request.max_frames = UInt32(clamping: Swift.max(1, limits.maxFrames))
    request.libjpeg_only = libjpegOnly ? 1 : 0
    request.libpng_only = libpngOnly ? 1 : 0
    request.engine_always = alwaysUsesJPEGEngine ? 1 : 0
    return request
  }
}
