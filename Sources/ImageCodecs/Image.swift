#if canImport(Glibc)
  import Glibc
#endif

/// A decoded image: a pixel buffer with its size, pixel format and EXIF orientation.
///
/// Layout: rows are stored top to bottom (top-left origin), each row `bytesPerRow` bytes apart
/// (tightly packed, `width * pixelFormat.bytesPerPixel`, unless stated otherwise), in one
/// contiguous allocation of `bytesPerRow * height` bytes. Channels are interleaved in the order
/// of ``PixelFormat`` (R, G, B, A); 16-bit samples are host-endian. Alpha is straight.
/// The pixels are as stored in the file: ``orientation`` says how to turn them upright, and
/// ``oriented()`` does it; ``colorSpace`` says what the numbers mean, and ``convertedToSRGB()``
/// converts them.
///
/// `Image` is a value: copies share the buffer until one of them is written to.
///
/// ```swift
/// let image = try ImageDecoder.decode(contentsOf: "photo.jpg")
/// image.withUnsafeBytes { pixels in
///   let firstRed = pixels[0]
/// }
/// ```
public struct Image: Sendable {
  /// Width in pixels.
  public private(set) var width: Int
  /// Height in pixels.
  public private(set) var height: Int
  /// How each pixel is laid out.
  public private(set) var pixelFormat: PixelFormat
  /// Distance in bytes from the start of one row to the start of the next.
  public private(set) var bytesPerRow: Int
  /// How the stored pixels must be turned to display upright (from EXIF; `.up` when absent).
  public var orientation: ExifOrientation
  /// What the numbers mean as colours: the source's colour space (sRGB when it says nothing),
  /// which ``ImageEncoder`` embeds as an ICC profile unless it is sRGB.
  public var colorSpace: ColorSpace
  var storage: PixelStorage

  /// Creates an image whose pixels are all zero (transparent black where there is alpha).
  ///
  /// Running out of memory is an error, not a trap: an image sized by input (a decode, a
  /// resample, a strip of rows) can need more memory than the process may have (a `ulimit`, a
  /// container), and that is a failure for this one image.
  /// - Parameters:
  ///   - width: Width in pixels, at least 1.
  ///   - height: Height in pixels, at least 1.
  ///   - pixelFormat: The pixel layout.
  ///   - orientation: The EXIF orientation to carry.
  /// - Throws: ``DecodeError`` of kind ``DecodeError/Kind/outOfMemory`` when the pixels cannot be
  ///   allocated, ``DecodeError/Kind/invalidArgument`` when the size is not positive or its byte
  ///   count does not fit in `Int`.
  public init(width: Int, height: Int, pixelFormat: PixelFormat, orientation: ExifOrientation = .up)
    throws(DecodeError)
  {
    guard let size = Image.byteLayout(width: width, height: height, pixelFormat: pixelFormat) else {
      throw DecodeError(
        kind: .invalidArgument, format: nil, message: "image size \(width)x\(height) is not representable")
    }
    guard let storage = PixelStorage(reserving: size.byteCount) else {
      throw DecodeError.cannotAllocate(size.byteCount, for: "\(width)x\(height) pixels")
    }
    storage.pointer.initializeMemory(as: UInt8.self, repeating: 0, count: size.byteCount)
    self.init(
      width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: size.bytesPerRow,
      orientation: orientation, storage: storage)
  }

  /// Creates an image from pixel bytes laid out as described above (tightly packed rows).
  /// - Parameters:
  ///   - width: Width in pixels.
  ///   - height: Height in pixels.
  ///   - pixelFormat: The pixel layout of `bytes`.
  ///   - bytes: Exactly `width * height * pixelFormat.bytesPerPixel` bytes.
  /// - Returns: `nil` when the byte count does not match the size, or the memory for the pixels is
  ///   not available (never a trap).
  public init?(width: Int, height: Int, pixelFormat: PixelFormat, bytes: some Collection<UInt8>) {
    guard let size = Image.byteLayout(width: width, height: height, pixelFormat: pixelFormat),
      bytes.count == size.byteCount, let storage = PixelStorage(reserving: size.byteCount)
    else { return nil }
    UnsafeMutableRawBufferPointer(start: storage.pointer, count: size.byteCount).copyBytes(from: bytes)
    self.init(
      width: width, height: height, pixelFormat: pixelFormat, bytesPerRow: size.bytesPerRow,
      orientation: .up, storage: storage)
  }

  init(
    width: Int, height: Int, pixelFormat: PixelFormat, bytesPerRow: Int, orientation: ExifOrientation,
    storage: PixelStorage
  ) {
    self.width = width
    self.height = height
    self.pixelFormat = pixelFormat
    self.bytesPerRow = bytesPerRow
    self.orientation = orientation
    self.colorSpace = .sRGB(pixelFormat.colorModel)
    self.storage = storage
  }

  /// The number of bytes the pixels occupy: `bytesPerRow * height`.
  public var byteCount: Int { bytesPerRow * height }

  /// Whether the pixel format has an alpha channel.
  public var hasAlpha: Bool { pixelFormat.hasAlpha }

  /// Calls `body` with the pixel bytes, without copying them.
  /// - Parameter body: Reads the `byteCount` pixel bytes; the pointer is valid only inside it.
  /// - Returns: What `body` returns.
  public func withUnsafeBytes<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try body(UnsafeRawBufferPointer(start: storage.pointer, count: byteCount))
  }

  /// Calls `body` with writable pixel bytes, copying them first if another `Image` shares them.
  /// - Parameter body: Reads and writes the `byteCount` pixel bytes; valid only inside it.
  /// - Returns: What `body` returns.
  /// - Throws: ``DecodeError/Kind/outOfMemory`` when the pixels are shared and there is no memory
  ///   for this image's own copy (`body` is not called and nothing changes), or what `body` throws.
  public mutating func withUnsafeMutableBytes<Result>(
    _ body: (UnsafeMutableRawBufferPointer) throws(DecodeError) -> Result
  ) throws(DecodeError) -> Result {
    if !isKnownUniquelyReferenced(&storage) {
      guard let copy = storage.copy(count: byteCount) else {
        throw DecodeError.cannotAllocate(byteCount, for: "a copy of \(width)x\(height) pixels")
      }
      storage = copy
    }
    return try body(UnsafeMutableRawBufferPointer(start: storage.pointer, count: byteCount))
  }

  /// The pixel bytes as an array (a copy).
  public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

  /// Row stride and total byte count for a tightly packed image, or `nil` on overflow or an empty size.
  static func byteLayout(width: Int, height: Int, pixelFormat: PixelFormat) -> (bytesPerRow: Int, byteCount: Int)? {
    guard width > 0, height > 0 else { return nil }
    let row = width.multipliedReportingOverflow(by: pixelFormat.bytesPerPixel)
    guard !row.overflow else { return nil }
    let total = row.partialValue.multipliedReportingOverflow(by: height)
    guard !total.overflow else { return nil }
    return (row.partialValue, total.partialValue)
  }

  /// Makes this image `width`x`height` in `pixelFormat`, reusing its allocation when it is large
  /// enough and not shared. The pixel contents are unspecified afterwards.
  /// - Returns: false, leaving the image unchanged, when a new allocation was needed and failed.
  mutating func reshape(width: Int, height: Int, pixelFormat: PixelFormat, bytesPerRow: Int, byteCount: Int) -> Bool {
    if byteCount > storage.capacity || !isKnownUniquelyReferenced(&storage) {
      guard let reserved = PixelStorage(reserving: byteCount) else { return false }
      storage = reserved
    }
    self.width = width
    self.height = height
    self.pixelFormat = pixelFormat
    self.bytesPerRow = bytesPerRow
    return true
  }
}

extension Image: Equatable {
  /// Two images are equal when size, format, orientation and every pixel byte match (the
  /// ``colorSpace`` is not compared).
  public static func == (lhs: Image, rhs: Image) -> Bool {
    guard lhs.width == rhs.width, lhs.height == rhs.height, lhs.pixelFormat == rhs.pixelFormat,
      lhs.orientation == rhs.orientation
    else { return false }
    if lhs.storage === rhs.storage && lhs.bytesPerRow == rhs.bytesPerRow { return true }
    let rowBytes = lhs.width * lhs.pixelFormat.bytesPerPixel
    for y in 0..<lhs.height {
      let a = lhs.storage.pointer + y * lhs.bytesPerRow
      let b = rhs.storage.pointer + y * rhs.bytesPerRow
      if memcmp(a, b, rowBytes) != 0 { return false }
    }
    return true
  }
}
