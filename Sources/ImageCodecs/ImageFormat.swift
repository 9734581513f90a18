internal import CImageCodecs

/// A compressed image format imgfetch reads: PNG, JPEG and WebP (also written, with
/// ``ImageEncoder`` and ``WebPEncoder``), GIF (still or animated), HEIC and AVIF (read through
/// libheif).
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Portable Network Graphics.
  case png
  /// JPEG (JFIF/EXIF).
  case jpeg
  /// WebP: lossy, lossless, with alpha, animated (decoded through libwebp; an animation's first
  /// frame is its image, and every frame must decode).
  case webp
  /// GIF (87a and 89a): interlaced, transparent, local palettes, animated (decoded through
  /// giflib; an animation's first frame on its logical screen is its image, and every frame must
  /// decode).
  case gif
  /// HEIF with HEVC images (what phone cameras save): the primary image, with its
  /// transformations applied (decoded through libheif, loaded on first use).
  case heic
  /// AVIF: HEIF with AV1 images (decoded through libheif, loaded on first use).
  case avif

  /// The format named by a file's first bytes (its magic number), never by its name.
  /// - Parameter bytes: The start of the file; 12 bytes are enough (`RIFF`, a size, `WEBP`).
  ///   A HEIF whose `ftyp` names a generic brand (`mif1`) is ``heic`` here; its header says
  ///   ``avif`` when its primary image is AV1.
  /// - Returns: `nil` when the bytes are not PNG, JPEG, WebP, GIF (`GIF87a`, `GIF89a`), HEIC or
  ///   AVIF.
  public init?(sniffing bytes: some Collection<UInt8>) {
    let head = Array(bytes.prefix(12))
    let found = head.withUnsafeBufferPointer { imc_sniff($0.baseAddress, $0.count) }
    self.init(code: found)
  }

  init?(code: Int32) {
    switch code {
    case Int32(IMC_FORMAT_PNG): self = .png
    case Int32(IMC_FORMAT_JPEG): self = .jpeg
    case Int32(IMC_FORMAT_WEBP): self = .webp
    case Int32(IMC_FORMAT_GIF): self = .gif
    case Int32(IMC_FORMAT_HEIC): self = .heic
    case Int32(IMC_FORMAT_AVIF): self = .avif
    default: return nil
    }
  }

  /// The name used in messages: `PNG`, `JPEG`, `WebP`, `GIF`, `HEIC` or `AVIF`.
  public var description: String {
    switch self {
    case .png: "PNG"
    case .jpeg: "JPEG"
    case .webp: "WebP"
    case .gif: "GIF"
    case .heic: "HEIC"
    case .avif: "AVIF"
    }
  }

  /// The usual file extension, without the dot: `png`, `jpg`, `webp`, `gif`, `heic` or `avif`.
  public var fileExtension: String {
    switch self {
    case .png: "png"
    case .jpeg: "jpg"
    case .webp: "webp"
    case .gif: "gif"
    case .heic: "heic"
    case .avif: "avif"
    }
  }

  /// Whether ``ImageDecoder`` decodes this format (every format here).
  public var isDecodable: Bool { true }
}
