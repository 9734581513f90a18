internal import CImageCodecs
public import FoundationEssentials
internal import SystemFiles

/// Decodes PNG and JPEG files into ``Image`` pixel buffers, strictly by default: an image is
/// returned only if every pixel decoded. The format comes from the magic bytes, never from a
/// file name.
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
  /// - Throws: ``DecodeError`` when the bytes are not a valid PNG or JPEG header or exceed the limits.
  public static func probe(_ bytes: some ContiguousBytes, limits: DecodeLimits = .standard) throws(DecodeError)
    -> ImageHeader
  {
    try withDecoder(.memory(bytes), options: DecodeOptions(limits: limits)) { _, info in ImageHeader(info) }
  }

  /// Reads the header of an image file, reading only as far into the file as the header goes.
  /// - Parameters:
  ///   - path: The file's path.
  ///   - limits: Limits the header must respect.
  /// - Returns: The header.
  /// - Throws: ``DecodeError`` (with `path` set) when the file cannot be read or is not a valid image header.
  public static func probe(contentsOf path: String, limits: DecodeLimits = .standard) throws(DecodeError)
    -> ImageHeader
  {
    try withDecoder(Source<[UInt8]>.file(path), options: DecodeOptions(limits: limits)) { _, info in ImageHeader(info) }
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

  static func decode<Bytes: ContiguousBytes>(_ source: Source<Bytes>, options: DecodeOptions) throws(DecodeError)
    -> Image
  {
    try withDecoder(source, options: options) { (decoder, info) throws(DecodeError) in
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
      return image
    }
  }

  static func decode<Bytes: ContiguousBytes>(_ source: Source<Bytes>, options: DecodeOptions, into image: inout Image)
    throws(DecodeError)
  {
    try withDecoder(source, options: options) { (decoder, info) throws(DecodeError) in
      let layout = try outputLayout(info)
      guard
        image.reshape(
          width: Int(info.output_width), height: Int(info.output_height), pixelFormat: layout.format,
          bytesPerRow: layout.bytesPerRow, byteCount: layout.byteCount)
      else { throw outOfMemory(info, layout.byteCount) }
      image.orientation = ExifOrientation(exifValue: Int(info.orientation))
      try read(decoder, info, bytesPerRow: layout.bytesPerRow, into: &image)
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
    request.libjpeg_only = libjpegOnly ? 1 : 0
    request.libpng_only = libpngOnly ? 1 : 0
    request.always_split = alwaysSplitsScans || smallestSplitScan != nil ? 1 : 0
    request.split_min_bytes = UInt64(Swift.max(0, smallestSplitScan ?? 0))
    return request
  }
}
