/// What a decode produces, and the limits it enforces.
public struct DecodeOptions: Sendable, Equatable {
  /// The pixel format to decode into.
  public var pixelFormat: PixelFormatRequest
  /// Size limits checked from the header, before any pixel memory is allocated.
  public var limits: DecodeLimits
  /// Whether damage that loses pixels fails the decode (`.strict`, the default) or not.
  public var strictness: Strictness
  /// Shrink on load: decode at `eighths`/8 of the stored size, a JPEG with DCT scaling, an opaque
  /// still WebP with libwebp's scaled output (a WebP with alpha, or animated, is decoded at full
  /// size: see ``ImageHeader/shrinksOnLoad``). PNG is always decoded at full size.
  public var jpegScale: JPEGScale
  /// Whether the pixels keep the source's colour space (`.source`, the default) or are converted to
  /// sRGB through its profile (`.sRGB`). A CMYK JPEG becomes RGB either way (through its profile
  /// when it has a usable one).
  public var colorSpace: ColorSpaceRequest
  /// Whether libjpeg decodes every JPEG itself, also where imgfetch's own JPEG engine would: a
  /// strict decode at 1/8 scale (a thumbnail's shrink-on-load, a validation), and of a progressive
  /// Huffman JPEG also at 1/4. The two give the same verdicts, messages and pixels (the tests and
  /// the FuzzJPEGEngine fuzzer compare them); this is for those comparisons. `false` by default.
  /// A test hook, not part of the API (`@_spi(Fuzzing)`).
  @_spi(Fuzzing) public var libjpegOnly = false
  /// Whether libpng reads every PNG row itself, also where imgfetch's own image-data path would
  /// (a plain 8- or 16-bit PNG, not interlaced, decoded as a stream: a thumbnail, a validation of
  /// a download). The two give the same verdicts, messages and pixels (the tests and the
  /// FuzzPNGRows fuzzer compare them); this is for those comparisons. `false` by default.
  /// A test hook, not part of the API (`@_spi(Fuzzing)`).
  @_spi(Fuzzing) public var libpngOnly = false
  /// Whether imgfetch's JPEG engine takes every decode it can, also the 4:2:0 baseline decodes it
  /// leaves to libjpeg while other decodes run in the process: the tests' and fuzzers' way to reach
  /// the engine whatever runs beside them. A test hook, not part of the API (`@_spi(Fuzzing)`).
  @_spi(Fuzzing) public var alwaysUsesJPEGEngine = false

  /// Creates options; every argument has the default described on its property.
  /// - Parameters:
  ///   - pixelFormat: The pixel format; `.source` by default.
  ///   - limits: The limits; ``DecodeLimits/standard`` by default.
  ///   - strictness: `.strict` by default.
  ///   - jpegScale: `.full` by default.
  ///   - colorSpace: `.source` by default.
  public init(
    pixelFormat: PixelFormatRequest = .source, limits: DecodeLimits = .standard,
    strictness: Strictness = .strict, jpegScale: JPEGScale = .full, colorSpace: ColorSpaceRequest = .source
  ) {
    self.pixelFormat = pixelFormat
    self.limits = limits
    self.strictness = strictness
    self.jpegScale = jpegScale
    self.colorSpace = colorSpace
  }
}

/// The pixel format a decode should produce.
public enum PixelFormatRequest: String, Sendable, CaseIterable {
  /// The source's channels at 8 bits: gray8, grayAlpha8, rgb8 or rgba8. Palettes become rgb8,
  /// or rgba8 when the PNG has transparency (tRNS); CMYK JPEGs become rgb8. 16-bit samples keep
  /// their high byte (`v >> 8`).
  case source
  /// Like `.source`, but 16-bit PNGs keep 16 bits per sample (gray16 … rgba16).
  case native
  /// Always rgba8 (alpha 255 where the source has none).
  case rgba8
  /// Always rgb8 (alpha, if any, is dropped without compositing).
  case rgb8
  /// Always gray8 (colour converted with Rec. 601 luma weights; alpha dropped).
  case gray8
}

/// The colour space a decode hands the pixels back in.
public enum ColorSpaceRequest: String, Sendable, CaseIterable {
  /// The numbers as stored, in the source's colour space (``Image/colorSpace`` says which).
  case source
  /// Converted to sRGB through the source's profile (lcms2), after the decode. A gray output of a
  /// colour source is converted in colour first, then made gray.
  case sRGB = "srgb"
}

/// How a decode treats damage that loses pixels.
public enum Strictness: Sendable {
  /// A truncated or corrupt stream is an error: a file is an image only if it decodes completely.
  /// Harmless oddities (extraneous bytes before a JPEG marker, a broken PNG text or iCCP chunk)
  /// are not.
  case strict
  /// Return whatever could be decoded; missing parts are filled by the library (usually gray).
  case lenient
}

/// A JPEG DCT scale factor: the output is `eighths`/8 of the stored size (rounded up).
public struct JPEGScale: Sendable, Equatable, Hashable {
  /// The numerator over 8, in 1…16.
  public let eighths: Int

  /// Creates a scale of `eighths`/8.
  /// - Parameter eighths: 1…16; values outside are clamped.
  public init(eighths: Int) { self.eighths = Swift.min(16, Swift.max(1, eighths)) }

  /// Full size (8/8).
  public static let full = JPEGScale(eighths: 8)
  /// Half size (4/8).
  public static let half = JPEGScale(eighths: 4)
  /// Quarter size (2/8).
  public static let quarter = JPEGScale(eighths: 2)
  /// Eighth size (1/8), the cheapest decode.
  public static let eighth = JPEGScale(eighths: 1)

  /// The output length for a stored length: `ceil(length * eighths / 8)`, as libjpeg computes it.
  /// - Parameter length: A stored width or height.
  /// - Returns: The scaled width or height.
  public func scaled(_ length: Int) -> Int { (length * eighths + 7) / 8 }
}

/// Limits checked from the image header before any pixel memory is allocated.
public struct DecodeLimits: Sendable, Equatable {
  /// Largest accepted width times height.
  public var maxPixels: Int
  /// Largest accepted width.
  public var maxWidth: Int
  /// Largest accepted height.
  public var maxHeight: Int
  /// Largest accepted number of scans in a JPEG (progressive files with absurd scan counts are a
  /// known denial of service).
  public var maxJPEGScans: Int
  /// Largest ancillary PNG chunk libpng may allocate, decompressed (guards against zTXt/iCCP bombs);
  /// also the largest ICC profile kept from a WebP file.
  public var maxChunkBytes: Int
  /// Largest accepted number of frames in an animation (WebP, GIF), counted from the file's chunks
  /// (a GIF's image descriptors) before any frame is decoded. Each frame is also held to the pixel
  /// limits (an animation's canvas is).
  public var maxFrames: Int

  /// Creates limits.
  /// - Parameters:
  ///   - maxPixels: 100 megapixels by default.
  ///   - maxWidth: 65,500 by default (libjpeg's own maximum).
  ///   - maxHeight: 65,500 by default.
  ///   - maxJPEGScans: 500 by default.
  ///   - maxChunkBytes: 8 MB by default.
  ///   - maxFrames: 1000 by default.
  public init(
    maxPixels: Int = 100_000_000, maxWidth: Int = 65_500, maxHeight: Int = 65_500, maxJPEGScans: Int = 500,
    maxChunkBytes: Int = 8_000_000, maxFrames: Int = 1000
  ) {
    self.maxPixels = maxPixels
    self.maxWidth = maxWidth
    self.maxHeight = maxHeight
    self.maxJPEGScans = maxJPEGScans
    self.maxChunkBytes = maxChunkBytes
    self.maxFrames = maxFrames
  }

  /// The defaults: 100 megapixels, 65,500 x 65,500, 500 JPEG scans, 8 MB PNG chunks, 1000 frames.
  public static let standard = DecodeLimits()
}
