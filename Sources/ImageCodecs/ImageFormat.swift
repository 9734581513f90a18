internal import CImageCodecs

/// A compressed image format imgfetch reads: PNG, JPEG, WebP and GIF (read by ``ImageDecoder``,
/// still or animated). PNG, JPEG and WebP are also written (``ImageEncoder``, ``WebPEncoder``).
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

  /// The format named by a file's first bytes (its magic number), never by its name.
  /// - Parameter bytes: The start of the file; 12 bytes are enough (`RIFF`, a size, `WEBP`).
  /// - Returns: `nil` when the bytes are not PNG, JPEG, WebP or GIF (`GIF87a`, `GIF89a`).
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
    default: return nil
    }
  }

  /// The name used in messages: `PNG`, `JPEG`, `WebP` or `GIF`.
  public var description: String {
    switch self {
    case .png: "PNG"
    case .jpeg: "JPEG"
    case .webp: "WebP"
    case .gif: "GIF"
    }
  }

  /// The usual file extension, without the dot: `png`, `jpg`, `webp` or `gif`.
  public var fileExtension: String {
    switch self {
    case .png: "png"
    case .jpeg: "jpg"
    case .webp: "webp"
    case .gif: "gif"
    }
  }

  /// Whether ``ImageDecoder`` decodes this format (every format here).
  public var isDecodable: Bool { true }
}
