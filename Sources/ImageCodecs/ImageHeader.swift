internal import CImageCodecs

/// What an image's header says, read without decoding any pixels.
public struct ImageHeader: Sendable, Equatable {
  /// The format, from the magic bytes.
  public let format: ImageFormat
  /// Stored width in pixels (before orientation).
  public let width: Int
  /// Stored height in pixels (before orientation).
  public let height: Int
  /// The colour model of the stream.
  public let colorType: ColorType
  /// Bits per sample: PNG 1, 2, 4, 8 or 16; JPEG its data precision (8); WebP and GIF 8; HEIC
  /// and AVIF the primary image's luma depth (8, 10 or 12).
  public let bitDepth: Int
  /// PNG: Adam7 interlaced.
  public let isInterlaced: Bool
  /// JPEG: progressive coding.
  public let isProgressive: Bool
  /// JPEG: arithmetic entropy coding.
  public let isArithmeticCoded: Bool
  /// JPEG with colour: the chroma subsampling, such as `4:2:0`; a lossy still WebP's `4:2:0`;
  /// `nil` otherwise.
  public let chromaSubsampling: String?
  /// The EXIF orientation (`.up` when absent).
  public let orientation: ExifOrientation
  /// Whether the file has an ICC colour profile (usable or not: see ``colorSpace``).
  public let hasICCProfile: Bool
  /// The colour description the file carries, its profile judged (see ``ColorSpace``).
  public let colorSpace: ColorSpace
  /// Whether the image has an alpha channel or PNG transparency (tRNS).
  public let hasAlpha: Bool
  /// The frames of an animation (WebP, GIF), the top-level images of a HEIF (a burst's photos; the
  /// primary one is the image); 1 for a still image.
  public let frameCount: Int
  /// WebP: the (first) image is lossless (VP8L); `false` for lossy WebP and other formats.
  public let isLossless: Bool

  /// Whether a decode can shrink this image on load (``DecodeOptions/jpegScale``): a JPEG (DCT
  /// scaling), an opaque still WebP (libwebp's scaled output). Not a PNG or a GIF (decoded at their
  /// stored size), nor a WebP with alpha (libwebp's scaler does not weight colour by alpha) or
  /// animated.
  public var shrinksOnLoad: Bool {
    switch format {
    case .jpeg: true
    case .webp: !hasAlpha && frameCount == 1
    case .png, .gif, .heic, .avif: false
    }
  }

  /// The colour model of a stream.
  public enum ColorType: String, Sendable, Equatable {
    /// One gray channel.
    case gray
    /// Gray and alpha (PNG).
    case grayAlpha
    /// Red, green, blue.
    case rgb
    /// Red, green, blue, alpha (PNG, WebP).
    case rgba
    /// Palette indices (PNG).
    case palette
    /// Y, Cb, Cr (JPEG).
    case ycbcr
    /// Cyan, magenta, yellow, black (JPEG).
    case cmyk
    /// Y, Cb, Cr, black (JPEG, Adobe).
    case ycck
    /// Something else.
    case unknown
  }

  /// Width once the orientation is applied.
  public var orientedWidth: Int { orientation.swapsDimensions ? height : width }
  /// Height once the orientation is applied.
  public var orientedHeight: Int { orientation.swapsDimensions ? width : height }

  init(_ info: imc_info, color: imc_color, limits: DecodeLimits) {
    format = ImageFormat(code: info.format) ?? .png
    width = Int(info.width)
    height = Int(info.height)
    bitDepth = Int(info.bit_depth)
    orientation = ExifOrientation(exifValue: Int(info.orientation))
    hasICCProfile = info.has_icc != 0
    isInterlaced = (format == .png || format == .gif) && info.interlaced != 0
    isProgressive = format == .jpeg && info.interlaced != 0
    isArithmeticCoded = info.arithmetic != 0
    frameCount = max(1, Int(info.frames))
    isLossless = format == .webp && info.lossless != 0
    if format == .webp {
      colorType = info.has_transparency != 0 ? .rgba : .rgb
      hasAlpha = info.has_transparency != 0
      chromaSubsampling = info.lossless != 0 || frameCount > 1 ? nil : "4:2:0"  // VP8 is always 4:2:0
    } else if format == .gif {
      colorType = .palette
      hasAlpha = info.has_transparency != 0  // a transparent index, or a first frame short of the screen
      chromaSubsampling = nil
    } else if format == .png || format == .heic || format == .avif {
      colorType =
        switch info.color_type {
        case Int32(IMC_PNG_COLOR_GRAY): .gray
        case Int32(IMC_PNG_COLOR_RGB): .rgb
        case Int32(IMC_PNG_COLOR_PALETTE): .palette
        case Int32(IMC_PNG_COLOR_GRAY_ALPHA): .grayAlpha
        case Int32(IMC_PNG_COLOR_RGBA): .rgba
        default: .unknown
        }
      hasAlpha = info.has_transparency != 0
      chromaSubsampling = nil
    } else {
      colorType =
        switch info.color_type {
        case Int32(IMC_JPEG_COLOR_GRAY): .gray
        case Int32(IMC_JPEG_COLOR_RGB): .rgb
        case Int32(IMC_JPEG_COLOR_YCBCR): .ycbcr
        case Int32(IMC_JPEG_COLOR_CMYK): .cmyk
        case Int32(IMC_JPEG_COLOR_YCCK): .ycck
        default: .unknown
        }
      hasAlpha = false
      chromaSubsampling = ImageHeader.subsampling(info)
    }
    colorSpace = ColorSpace(color, model: colorType.colorModel, maxProfileBytes: limits.maxChunkBytes)
  }

  private static func subsampling(_ info: imc_info) -> String? {
    guard info.components >= 3 else { return nil }
    let h = withUnsafeBytes(of: info.h_sampling) { Array($0.bindMemory(to: Int32.self)) }
    let v = withUnsafeBytes(of: info.v_sampling) { Array($0.bindMemory(to: Int32.self)) }
    guard h[1] > 0, v[1] > 0, h[0] % h[1] == 0, v[0] % v[1] == 0 else { return "other" }
    switch (h[0] / h[1], v[0] / v[1]) {
    case (1, 1): return "4:4:4"
    case (2, 1): return "4:2:2"
    case (2, 2): return "4:2:0"
    case (1, 2): return "4:4:0"
    case (4, 1): return "4:1:1"
    default: return "other"
    }
  }
}
