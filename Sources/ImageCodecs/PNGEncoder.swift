internal import CImageCodecs

/// PNG through libpng with a zlib level (0…9): every ``PixelFormat`` is stored as it is. A comment
/// is a `tEXt` (ASCII) or uncompressed `iTXt` chunk with keyword `Comment` right after `IHDR`, an ICC
/// profile an `iCCP` chunk.
public struct PNGEncoder: ImageEncoding, Hashable {
  /// zlib level 0…9.
  public var compressionLevel: Int

  /// Creates the encoder.
  /// - Parameter compressionLevel: 0…9 (clamped), 6 by default.
  public init(compressionLevel: Int = 6) { self.compressionLevel = min(9, max(0, compressionLevel)) }

  /// `.png`.
  public var format: ImageFormat { .png }
  /// `png/6`.
  public var settingsLabel: String { "png/\(compressionLevel)" }
  /// `true`.
  public var storesAlpha: Bool { true }

  /// Encodes pixels of any format.
  public func encode(_ image: Image, comment: String?, iccProfile: [UInt8]?) throws(EncodeError) -> [UInt8] {
    try CEncoding.run(image, format: .png, comment: comment, iccProfile: iccProfile) {
      pixels, comment, icc, iccLength, buffer, status in
      imc_png_encode(
        pixels, UInt32(image.width), UInt32(image.height), image.bytesPerRow, image.pixelFormat.layout,
        Int32(clamping: compressionLevel), comment, icc, iccLength, &buffer, &status)
    }
  }
}

/// The shared call shape of the C encoders in CImageCodecs: pixels, comment and profile in, a
/// malloc'd buffer or a status out.
enum CEncoding {
  static func run(
    _ image: Image, format: ImageFormat, comment: String?, iccProfile: [UInt8]?,
    _ call: (
      UnsafePointer<UInt8>, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int, inout imc_buffer, inout imc_status
    ) -> Int32
  ) throws(EncodeError) -> [UInt8] {
    var status = imc_status()
    var buffer = imc_buffer()
    defer { imc_buffer_free(&buffer) }
    let code = image.withUnsafeBytes { raw in
      let pixels = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
      return withOptionalCString(comment) { text in
        withOptionalBytes(iccProfile) { icc, length in call(pixels, text, icc, length, &buffer, &status) }
      }
    }
    guard code == IMC_OK, let data = buffer.data else {
      throw EncodeError(format: format, message: status.messageText, path: nil)
    }
    return Array(UnsafeBufferPointer(start: data, count: buffer.length))
  }

  static func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
  }

  static func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
    guard let bytes, !bytes.isEmpty else { return body(nil, 0) }
    return bytes.withUnsafeBufferPointer { body($0.baseAddress, $0.count) }
  }
}
