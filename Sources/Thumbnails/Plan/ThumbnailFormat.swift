public import ImageCodecs

/// The file format a thumbnail is written in, and the encoder settings.
///
/// ```swift
/// ThumbnailFormat.automatic        // JPEG quality 85 for opaque sources, PNG for sources with alpha
/// ThumbnailFormat.jpeg(quality: 70)
/// ThumbnailFormat.webp(quality: 80)  // alpha kept when the source has it
/// ```
///
/// The chosen format's encoder (``/ImageCodecs/ImageEncoding``) is the one place that knows it: the
/// thumbnail's file extension, the settings its stamp records, and whether alpha is kept come from
/// it.
public struct ThumbnailFormat: Sendable, Hashable {
  /// Which format is written.
  public enum Choice: String, Sendable, Hashable, CaseIterable {
    /// JPEG for opaque sources, PNG for sources with alpha.
    case automatic = "auto"
    /// Always JPEG; alpha is composited over white first.
    case jpeg
    /// Always PNG.
    case png
    /// Always WebP (lossy, or lossless with ``ThumbnailFormat/webpLossless``); alpha is kept.
    case webp
  }

  /// Which format is written.
  public var choice: Choice
  /// JPEG quality, 1…100 (85 by default), used whenever JPEG is written.
  public var jpegQuality: Int
  /// PNG zlib level, 0…9 (6 by default), used whenever PNG is written.
  public var pngCompressionLevel: Int
  /// WebP quality, 0…100 (80 by default), used whenever lossy WebP is written.
  public var webpQuality: Int
  /// Whether WebP is lossless (`false` by default).
  public var webpLossless: Bool
  /// Whether JPEG is written progressive (`false` by default: baseline), so a browser shows a
  /// coarse whole image first (`imgfetch --progressive`).
  public var jpegProgressive = false
  /// Whether JPEG keeps chroma at full resolution, 4:4:4 (`false` by default: 4:2:0;
  /// `imgfetch --chroma 444`).
  public var jpegFullChroma = false

  /// Creates format settings.
  /// - Parameters:
  ///   - choice: Which format is written.
  ///   - jpegQuality: JPEG quality, clamped to 1…100.
  ///   - pngCompressionLevel: PNG zlib level, clamped to 0…9.
  ///   - webpQuality: WebP quality, clamped to 0…100.
  ///   - webpLossless: Lossless WebP.
  public init(
    choice: Choice, jpegQuality: Int = 85, pngCompressionLevel: Int = 6, webpQuality: Int = 80,
    webpLossless: Bool = false
  ) {
    self.choice = choice
    self.jpegQuality = min(100, max(1, jpegQuality))
    self.pngCompressionLevel = min(9, max(0, pngCompressionLevel))
    self.webpQuality = min(100, max(0, webpQuality))
    self.webpLossless = webpLossless
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

  /// Always WebP.
  /// - Parameters:
  ///   - quality: 0…100 (lossy).
  ///   - lossless: Lossless instead.
  /// - Returns: The settings.
  public static func webp(quality: Int = 80, lossless: Bool = false) -> ThumbnailFormat {
    ThumbnailFormat(choice: .webp, webpQuality: quality, webpLossless: lossless)
  }

  /// The encoder for a source with or without alpha.
  /// - Parameter hasAlpha: Whether the source has an alpha channel (or PNG transparency).
  /// - Returns: The encoder given to ``/ImageCodecs/ImageEncoder``.
  public func resolved(hasAlpha: Bool) -> any ImageEncoding {
    switch choice {
    case .automatic: hasAlpha ? png : jpeg
    case .jpeg: jpeg
    case .png: png
    case .webp: WebPEncoder(quality: webpQuality, lossless: webpLossless)
    }
  }

  /// The encoders this choice can resolve to, whatever the source (reuse looks for each).
  var candidates: [any ImageEncoding] {
    choice == .automatic ? [resolved(hasAlpha: false), resolved(hasAlpha: true)] : [resolved(hasAlpha: false)]
  }

  /// The file extensions of every format a thumbnail can be written in (`jpg`, `png`, `webp`).
  public static var fileExtensions: [String] {
    Choice.allCases.filter { $0 != .automatic }.map { ThumbnailFormat(choice: $0).resolved(hasAlpha: false).format.fileExtension }
  }

  private var jpeg: JPEGEncoder {
    var encoder = JPEGEncoder(quality: jpegQuality, progressive: jpegProgressive)
    encoder.keepsFullChroma = jpegFullChroma
    return encoder
  }
  private var png: PNGEncoder { PNGEncoder(compressionLevel: pngCompressionLevel) }
}
