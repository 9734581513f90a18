public import ImageCodecs

/// The file format a thumbnail is written in, and the encoder settings.
///
/// ```swift
/// ThumbnailFormat.automatic        // JPEG quality 85 for opaque sources, PNG for sources with alpha
/// ThumbnailFormat.jpeg(quality: 70)
/// ```
public struct ThumbnailFormat: Sendable, Hashable {
  /// Which format is written.
  public enum Choice: String, Sendable, Hashable, CaseIterable {
    /// JPEG for opaque sources, PNG for sources with alpha.
    case automatic = "auto"
    /// Always JPEG; alpha is composited over white first.
    case jpeg
    /// Always PNG.
    case png
  }

  /// Which format is written.
  public var choice: Choice
  /// JPEG quality, 1…100 (85 by default), used whenever JPEG is written.
  public var jpegQuality: Int
  /// PNG zlib level, 0…9 (6 by default), used whenever PNG is written.
  public var pngCompressionLevel: Int

  /// Creates format settings.
  /// - Parameters:
  ///   - choice: Which format is written.
  ///   - jpegQuality: JPEG quality, clamped to 1…100.
  ///   - pngCompressionLevel: PNG zlib level, clamped to 0…9.
  public init(choice: Choice, jpegQuality: Int = 85, pngCompressionLevel: Int = 6) {
    self.choice = choice
    self.jpegQuality = min(100, max(1, jpegQuality))
    self.pngCompressionLevel = min(9, max(0, pngCompressionLevel))
  }

  /// JPEG (quality 85) for opaque sources, PNG for sources with alpha.
  public static let automatic = ThumbnailFormat(choice: .automatic)

  /// Always JPEG.
  /// - Parameter quality: 1…100.
  /// - Returns: The settings.
  public static func jpeg(quality: Int = 85) -> ThumbnailFormat {
    ThumbnailFormat(choice: .jpeg, jpegQuality: quality)
  }

  /// Always PNG.
  /// - Parameter compressionLevel: zlib level 0…9.
  /// - Returns: The settings.
  public static func png(compressionLevel: Int = 6) -> ThumbnailFormat {
    ThumbnailFormat(choice: .png, pngCompressionLevel: compressionLevel)
  }

  /// The encoder settings for a source with or without alpha.
  /// - Parameter hasAlpha: Whether the source has an alpha channel (or PNG transparency).
  /// - Returns: The settings given to ``/ImageCodecs/ImageEncoder``.
  public func resolved(hasAlpha: Bool) -> EncodedFormat {
    let png = choice == .png || (choice == .automatic && hasAlpha)
    return png
      ? .png(compressionLevel: pngCompressionLevel)
      : .jpeg(quality: jpegQuality, progressive: false)
  }
}
