/// Why an image could not be encoded or written.
public struct EncodeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The target format.
  public let format: ImageFormat
  /// What went wrong.
  public let message: String
  /// The destination file, when writing one.
  public var path: String?

  /// `path: cannot encode JPEG: message`.
  public var description: String {
    (path.map { "\($0): " } ?? "") + "cannot encode \(format): \(message)"
  }
}

/// Encodes ``Image``s with an ``ImageEncoding`` (JPEG, PNG, WebP), to memory or atomically to a file.
///
/// ```swift
/// let bytes = try ImageEncoder.encode(thumbnail, as: .jpeg(quality: 85), comment: "made by me")
/// try ImageEncoder.write(thumbnail, as: .png(), to: "thumb.png")
/// try ImageEncoder.write(thumbnail, as: .webp(quality: 80), to: "thumb.webp")
/// ```
///
/// A comment is stored ahead of the pixels (WebP: in a chunk of its own), where ``ImageMetadata``
/// reads it back without decoding: a JPEG `COM` segment right after the JFIF header, a PNG text
/// chunk with the keyword `Comment` right after `IHDR` (`tEXt` for ASCII text, uncompressed `iTXt`
/// for other UTF-8), a WebP `ICMT` chunk.
///
/// Colour: an image whose ``Image/colorSpace`` is not sRGB is written with its ICC profile (the
/// embedded one, or one made from PNG `gAMA`/`cHRM`), so every viewer shows the colours it means; an
/// sRGB image is written without one (untagged is sRGB to every viewer). WebP has no gray: a gray
/// image with a profile of its own is converted to sRGB for it.
public enum ImageEncoder {
  /// Encodes an image to bytes.
  /// - Parameters:
  ///   - image: The pixels. JPEG takes gray8, rgb8 and rgba8 (alpha dropped); PNG every format; WebP
  ///     8-bit formats.
  ///   - encoder: The format and its settings, such as `.jpeg(quality: 85)`.
  ///   - comment: Text to store in the file (JPEG: at most 65,533 bytes of UTF-8; PNG: under 1 MB),
  ///     without NUL characters; `nil` stores none.
  /// - Returns: The encoded file's bytes.
  /// - Throws: ``EncodeError`` for a pixel format the target cannot hold, an unusable comment or a
  ///   library failure.
  public static func encode(_ image: Image, as encoder: some ImageEncoding, comment: String? = nil) throws(EncodeError)
    -> [UInt8]
  {
    if let comment, comment.utf8.contains(0) {
      throw EncodeError(format: encoder.format, message: "a comment cannot hold a NUL character", path: nil)
    }
    // WebP stores gray as RGB, where a gray profile does not apply: such an image is written in sRGB.
    if encoder.format == .webp && !image.pixelFormat.isColor && embeddedProfile(of: image) != nil {
      let converted: Image
      do { converted = try image.convertedToSRGB() } catch {
        throw EncodeError(format: encoder.format, message: error.message, path: nil)
      }
      return try encoder.encode(converted, comment: comment, iccProfile: nil)
    }
    return try encoder.encode(image, comment: comment, iccProfile: embeddedProfile(of: image))
  }

  /// The profile an image is written with: none for sRGB.
  static func embeddedProfile(of image: Image) -> [UInt8]? {
    image.colorSpace.isSRGB || image.colorSpace.model != image.pixelFormat.colorModel
      ? nil : image.colorSpace.profileBytes
  }

  /// A JPEG with the given luma sampling factors (1 or 2 each; chroma 1) and restart interval
  /// (MCUs, 0 for none): how the tests make 4:4:4, 4:2:2, 4:4:0 and 4:2:0 files, with and without
  /// restart markers.
  package static func encodeJPEG(
    _ image: Image, quality: Int, lumaSampling: (horizontal: Int, vertical: Int), restartInterval: Int
  ) throws(EncodeError) -> [UInt8] {
    var encoder = JPEGEncoder(quality: quality)
    encoder.lumaSampling = lumaSampling
    encoder.restartInterval = restartInterval
    return try encode(image, as: encoder)
  }

  /// JPEG with every component's sampling factors (luma, Cb, Cr; 1…4 each), baseline or
  /// progressive, and a restart interval (MCUs, 0 for none), for the tests' sampling layouts
  /// (chroma finer than luma included).
  package static func encodeJPEG(
    _ image: Image, quality: Int, sampling: [(horizontal: Int, vertical: Int)], progressive: Bool,
    restartInterval: Int = 0
  ) throws(EncodeError) -> [UInt8] {
    precondition(sampling.count == 3, "luma, Cb and Cr")
    var encoder = JPEGEncoder(quality: quality, progressive: progressive)
    encoder.lumaSampling = sampling[0]
    encoder.cbSampling = sampling[1]
    encoder.crSampling = sampling[2]
    encoder.restartInterval = restartInterval
    return try encode(image, as: encoder)
  }

  /// Encodes an image and writes it atomically (temporary file, fsync, rename): a reader sees the
  /// old file or the complete new one, and a failure leaves nothing behind.
  /// - Parameters:
  ///   - image: The pixels.
  ///   - encoder: The format and its settings.
  ///   - path: The destination; its directory must exist.
  /// - Throws: ``EncodeError`` with `path` set.
  public static func write(_ image: Image, as encoder: some ImageEncoding, to path: String) throws(EncodeError) {
    var bytes: [UInt8]
    do { bytes = try encode(image, as: encoder) } catch {
      var located = error
      located.path = path
      throw located
    }
    do { try AtomicFile.write(bytes, to: path) } catch {
      throw EncodeError(format: encoder.format, message: error.reason, path: path)
    }
  }
}
