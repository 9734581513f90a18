/// One file format imgfetch writes, with its settings: ``JPEGEncoder``, ``PNGEncoder`` and
/// ``WebPEncoder``. Everything that names, stamps or recognises a written file asks the encoder
/// (its ``format`` for the file extension, its ``settingsLabel`` for the record of how it was
/// made), so a new format is a new conforming type and its ``ImageFormat`` case.
///
/// ```swift
/// let bytes = try ImageEncoder.encode(image, as: .webp(quality: 80))
/// let same = try WebPEncoder(quality: 80).encode(image, comment: nil, iccProfile: nil)
/// print(bytes.count == same.count)
/// ```
public protocol ImageEncoding: Sendable {
  /// The file format written.
  var format: ImageFormat { get }
  /// The settings as one token, such as `jpeg/85`, `png/6`, `webp/80` or `webp/lossless`: what a
  /// thumbnail's stamp records, so other settings make another file.
  var settingsLabel: String { get }
  /// Whether the format keeps an alpha channel (JPEG does not: composite alpha away first).
  var storesAlpha: Bool { get }
  /// Encodes an image.
  /// - Parameters:
  ///   - image: The pixels.
  ///   - comment: Text stored ahead of the pixels where ``ImageMetadata`` reads it back, or `nil`.
  ///     It has no NUL character (``ImageEncoder`` checks).
  ///   - iccProfile: An ICC profile to embed, or `nil` (sRGB said by nothing).
  /// - Returns: The file's bytes.
  /// - Throws: ``EncodeError`` for pixels the format cannot hold, an unusable comment, or a library failure.
  func encode(_ image: Image, comment: String?, iccProfile: [UInt8]?) throws(EncodeError) -> [UInt8]
}

extension ImageEncoding where Self == JPEGEncoder {
  /// JPEG with a quality (1…100), optionally progressive.
  /// - Parameters:
  ///   - quality: 1…100, 85 by default.
  ///   - progressive: Progressive scans; `false` by default.
  /// - Returns: The encoder.
  public static func jpeg(quality: Int = 85, progressive: Bool = false) -> JPEGEncoder {
    JPEGEncoder(quality: quality, progressive: progressive)
  }
}

extension ImageEncoding where Self == PNGEncoder {
  /// PNG with a zlib compression level (0…9).
  /// - Parameter compressionLevel: 0…9, 6 by default.
  /// - Returns: The encoder.
  public static func png(compressionLevel: Int = 6) -> PNGEncoder { PNGEncoder(compressionLevel: compressionLevel) }
}

extension ImageEncoding where Self == WebPEncoder {
  /// WebP, lossy with a quality (0…100) or lossless.
  /// - Parameters:
  ///   - quality: 0…100, 80 by default.
  ///   - lossless: Lossless; `false` by default.
  /// - Returns: The encoder.
  public static func webp(quality: Int = 80, lossless: Bool = false) -> WebPEncoder {
    WebPEncoder(quality: quality, lossless: lossless)
  }
}
