import FoundationEssentials
public import ImageCodecs

/// A ThumbHash: a blurred preview of an image in about 25 bytes, which an app shows while the
/// thumbnail loads (Evan Wallace's published format, <https://evanw.github.io/thumbhash/>).
///
/// It holds the image's average colour, its approximate aspect ratio, and the low-frequency
/// cosine coefficients of its lightness, two colour-difference channels and (when the image has
/// any transparency) alpha, each quantised to four bits. An opaque image's hash is at most 24
/// bytes.
///
/// ```swift
/// let thumbnail = try Thumbnailer(options: ThumbnailOptions(size: .longestSide(256)))
///   .image(contentsOf: "photo.jpg")
/// let hash = ThumbHash(image: thumbnail)
/// print(hash.base64)            // such as "1QcSHQRnh493V4dIh4eXh1h4kJUI"
/// let preview = hash.rendered() // about 32 pixels on its longest side, RGBA
/// ```
///
/// Made from an image of at most 100 pixels on its longest side; a larger image is first
/// shrunk to that by averaging boxes of pixels (alpha-weighted), so the hash of a thumbnail costs
/// no second decode.
public struct ThumbHash: Sendable, Equatable, CustomStringConvertible {
  /// The hash's bytes.
  public let bytes: [UInt8]

  /// Wraps the bytes of a hash made elsewhere.
  /// - Parameter bytes: The hash; at least its 5 header bytes (6 when it says it has alpha) and
  ///   as many coefficient bytes as its header promises.
  /// - Returns: `nil` when the bytes are too short for what their header says.
  public init?(bytes: [UInt8]) {
    guard bytes.count >= 5 else { return nil }
    let header = ThumbHashHeader(bytes)
    guard bytes.count >= header.byteCount else { return nil }
    self.bytes = bytes
  }

  /// Reads a hash from its Base64 text (as in imgfetch's JSON line).
  /// - Parameter base64: Standard Base64, with or without padding.
  /// - Returns: `nil` when the text is not Base64 or not a whole hash.
  public init?(base64: String) {
    let padded = base64 + String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
    guard let data = Data(base64Encoded: padded) else { return nil }
    self.init(bytes: [UInt8](data))
  }

  /// Computes the hash of an image.
  /// - Parameter image: Any pixel format; 16-bit samples are read by their high byte. The pixels
  ///   are taken as stored (a thumbnail's are upright).
  public init(image: Image) {
    let pixels = ThumbHashPixels(image: image)
    bytes = ThumbHashEncoder.encode(pixels)
  }

  /// The hash as standard Base64 with padding.
  public var base64: String { Data(bytes).base64EncodedString() }

  /// The Base64 text.
  public var description: String { base64 }

  /// Whether the hashed image had any transparency.
  public var hasAlpha: Bool { ThumbHashHeader(bytes).hasAlpha }

  /// The image's width divided by its height, as far as the hash records it (to within the
  /// number of coefficients along each side).
  public var approximateAspectRatio: Double {
    let header = ThumbHashHeader(bytes)
    return Double(header.storedColumns) / Double(header.storedRows)
  }

  /// The average colour, each channel in 0...1: what the hash's constant terms say.
  public var averageColor: (red: Double, green: Double, blue: Double, alpha: Double) {
    let header = ThumbHashHeader(bytes)
    let rgb = ThumbHashHeader.rgb(l: header.lightness, p: header.p, q: header.q)
    return (rgb.red, rgb.green, rgb.blue, header.alpha)
  }

  /// Draws the blurred preview the hash stands for.
  /// - Returns: An `rgba8` image about 32 pixels on its longest side, in the recorded aspect ratio.
  public func rendered() -> Image { ThumbHashDecoder.render(self) }
}
