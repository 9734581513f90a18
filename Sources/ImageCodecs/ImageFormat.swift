internal import CImageCodecs

/// A compressed image format imgfetch decodes.
public enum ImageFormat: String, Sendable, CaseIterable, CustomStringConvertible {
  /// Portable Network Graphics.
  case png
  /// JPEG (JFIF/EXIF).
  case jpeg

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

  /// The upper-case name used in messages: `PNG` or `JPEG`.
  public var description: String { self == .png ? "PNG" : "JPEG" }

  /// The usual file extension, without the dot: `png` or `jpg`.
  public var fileExtension: String { self == .png ? "png" : "jpg" }
}
