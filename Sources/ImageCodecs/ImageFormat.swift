internal import CImageCodecs

/// A compressed image format imgfetch reads or writes: PNG and JPEG both ways, WebP written only
/// (``ImageEncoder`` with ``WebPEncoder``; ``ImageDecoder`` refuses it as not an image).
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Portable Network Graphics.
  case png
  /// JPEG (JFIF/EXIF).
  case jpeg
  /// WebP (written by ``WebPEncoder``; not decoded).
  case webp

  /// The format named by a file's first bytes (its magic number), never by its name.
  /// - Parameter bytes: The start of the file; 8 bytes are enough.
  /// - Returns: `nil` when the bytes are neither PNG nor JPEG.
  public init?(sniffing bytes: some Collection<UInt8>) {
    let head = Array(bytes.prefix(8))
    let found = head.withUnsafeBufferPointer { imc_sniff($0.baseAddress, $0.count) }
    self.init(code: found)
  }

  init?(code: Int32) {
    switch code {
    case Int32(IMC_FORMAT_PNG): self = .png
    case Int32(IMC_FORMAT_JPEG): self = .jpeg
    default: return nil
    }
  }

  /// The name used in messages: `PNG`, `JPEG` or `WebP`.
  public var description: String {
    switch self {
    case .png: "PNG"
    case .jpeg: "JPEG"
    case .webp: "WebP"
    }
  }

  /// The usual file extension, without the dot: `png`, `jpg` or `webp`.
  public var fileExtension: String {
    switch self {
    case .png: "png"
    case .jpeg: "jpg"
    case .webp: "webp"
    }
  }

  /// Whether ``ImageDecoder`` decodes this format.
  public var isDecodable: Bool { self != .webp }
}
