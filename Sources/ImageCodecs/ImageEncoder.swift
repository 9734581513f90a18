internal import CImageCodecs

/// A compressed format and its settings for ``ImageEncoder``.
public enum EncodedFormat: Sendable, Equatable, Hashable {
  /// JPEG with a quality (1…100), optionally progressive. Huffman tables are always optimized.
  /// Alpha, if any, is dropped.
  case jpeg(quality: Int = 85, progressive: Bool = false)
  /// PNG with a zlib compression level (0…9). Every ``PixelFormat`` is stored as is.
  case png(compressionLevel: Int = 6)

  /// The container format.
  public var imageFormat: ImageFormat {
    switch self {
    case .jpeg: .jpeg
    case .png: .png
    }
  }
}

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

/// Encodes ``Image``s as JPEG or PNG, to memory or atomically to a file.
///
/// ```swift
/// let bytes = try ImageEncoder.encode(thumbnail, as: .jpeg(quality: 85), comment: "made by me")
/// try ImageEncoder.write(thumbnail, as: .png(), to: "thumb.png")
/// ```
///
/// A comment is stored ahead of the pixels, where ``ImageMetadata`` reads it back without decoding:
/// a JPEG `COM` segment right after the JFIF header, or a PNG text chunk with the keyword `Comment`
/// right after `IHDR` (`tEXt` for ASCII text, uncompressed `iTXt` for other UTF-8).
public enum ImageEncoder {
  /// Encodes an image to bytes.
  /// - Parameters:
  ///   - image: The pixels. JPEG takes gray8, rgb8 and rgba8 (alpha dropped); PNG takes every format.
  ///   - format: The format and its settings.
  ///   - comment: Text to store in the file (JPEG: at most 65,533 bytes of UTF-8; PNG: under 1 MB),
  ///     without NUL characters; `nil` stores none.
  /// - Returns: The encoded file's bytes.
  /// - Throws: ``EncodeError`` for a pixel format the target cannot hold, an unusable comment or a
  ///   library failure.
  public static func encode(_ image: Image, as format: EncodedFormat, comment: String? = nil) throws(EncodeError)
    -> [UInt8]
  {
    try encode(image, as: format, comment: comment, lumaSampling: (0, 0), restartInterval: 0)
  }

  /// A JPEG with the given luma sampling factors (1 or 2 each; chroma 1) and restart interval
  /// (MCUs, 0 for none): how the tests make 4:4:4, 4:2:2, 4:4:0 and 4:2:0 files, with and without
  /// restart markers.
  package static func encodeJPEG(
    _ image: Image, quality: Int, lumaSampling: (horizontal: Int, vertical: Int), restartInterval: Int
  ) throws(EncodeError) -> [UInt8] {
    try encode(
      image, as: .jpeg(quality: quality), comment: nil, lumaSampling: lumaSampling, restartInterval: restartInterval)
  }

  private static func encode(
    _ image: Image, as format: EncodedFormat, comment: String?, lumaSampling: (horizontal: Int, vertical: Int),
    restartInterval: Int
  ) throws(EncodeError) -> [UInt8] {
    if let comment, comment.utf8.contains(0) {
      throw EncodeError(format: format.imageFormat, message: "a comment cannot hold a NUL character", path: nil)
    }
    var status = imc_status()
    var buffer = imc_buffer()
    let code = withOptionalCString(comment) { comment in
      encode(
        image, as: format, comment: comment, lumaSampling: lumaSampling, restartInterval: restartInterval, &buffer,
        &status)
    }
    defer { imc_buffer_free(&buffer) }
    guard code == IMC_OK, let data = buffer.data else {
      throw EncodeError(format: format.imageFormat, message: status.messageText, path: nil)
    }
    return Array(UnsafeBufferPointer(start: data, count: buffer.length))
  }

  /// Calls `body` with a C string of `text`, or with `nil`.
  private static func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
  }

  /// The C encoder call for `format`.
  private static func encode(
    _ image: Image, as format: EncodedFormat, comment: UnsafePointer<CChar>?,
    lumaSampling: (horizontal: Int, vertical: Int), restartInterval: Int, _ buffer: inout imc_buffer,
    _ status: inout imc_status
  ) -> Int32 {
    image.withUnsafeBytes { raw in
      let pixels = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
      let (width, height) = (UInt32(image.width), UInt32(image.height))
      let layout = Int32(image.pixelFormat.rawValue)
      switch format {
      case .jpeg(let quality, let progressive):
        var options = imc_jpeg_options(
          quality: Int32(clamping: quality), progressive: progressive ? 1 : 0, optimize: 1,
          luma_h_sampling: Int32(clamping: lumaSampling.horizontal),
          luma_v_sampling: Int32(clamping: lumaSampling.vertical),
          restart_interval: Int32(clamping: restartInterval))
        return imc_jpeg_encode(
          pixels, width, height, image.bytesPerRow, layout, &options, comment, &buffer, &status)
      case .png(let level):
        return imc_png_encode(
          pixels, width, height, image.bytesPerRow, layout, Int32(clamping: level), comment, &buffer, &status)
      }
    }
  }

  /// Encodes an image and writes it atomically (temporary file, fsync, rename): a reader sees the
  /// old file or the complete new one, and a failure leaves nothing behind.
  /// - Parameters:
  ///   - image: The pixels.
  ///   - format: The format and its settings.
  ///   - path: The destination; its directory must exist.
  /// - Throws: ``EncodeError`` with `path` set.
  public static func write(_ image: Image, as format: EncodedFormat, to path: String) throws(EncodeError) {
    var bytes: [UInt8]
    do { bytes = try encode(image, as: format) } catch {
      var located = error
      located.path = path
      throw located
    }
    do { try AtomicFile.write(bytes, to: path) } catch {
      throw EncodeError(format: format.imageFormat, message: error.reason, path: path)
    }
  }
}
