internal import CLibWebPAdapter

/// WebP through libwebp: lossy with a quality (0…100), or lossless. Alpha is stored when the pixels
/// have it (a source with alpha keeps it); gray is stored as RGB. A comment is a chunk of its own
/// (`ICMT`, RIFF's comment FourCC), an ICC profile the `ICCP` chunk, both in the extended container
/// (libwebpmux).
public struct WebPEncoder: ImageEncoding, Hashable {
  /// Lossy quality 0…100 (lossless: effort, 100 the smallest file).
  public var quality: Int
  /// Lossless.
  public var lossless: Bool
  /// libwebp's method, 0 (fast) … 6 (small); 4, libwebp's default.
  public var method: Int

  /// Creates the encoder.
  /// - Parameters:
  ///   - quality: 0…100 (clamped), 80 by default.
  ///   - lossless: `false` by default.
  ///   - method: 0…6 (clamped), 4 by default.
  public init(quality: Int = 80, lossless: Bool = false, method: Int = 4) {
    self.quality = min(100, max(0, quality))
    self.lossless = lossless
    self.method = min(6, max(0, method))
  }

  /// `.webp`.
  public var format: ImageFormat { .webp }
  /// `webp/80`, or `webp/lossless` (with `-m` and the method when it is not 4).
  public var settingsLabel: String {
    (lossless ? "webp/lossless" : "webp/\(quality)") + (method == 4 ? "" : "-m\(method)")
  }
  /// `true`.
  public var storesAlpha: Bool { true }

  /// Encodes 8-bit pixels (16-bit formats are refused).
  public func encode(_ image: Image, comment: String?, iccProfile: [UInt8]?) throws(EncodeError) -> [UInt8] {
    guard image.pixelFormat.bytesPerSample == 1 else {
      throw EncodeError(format: .webp, message: "WebP holds 8-bit pixels, not \(image.pixelFormat)", path: nil)
    }
    var options = imc_webp_options(quality: Int32(quality), lossless: lossless ? 1 : 0, method: Int32(method))
    var message = [CChar](repeating: 0, count: 160)
    var out: UnsafeMutablePointer<UInt8>? = nil
    var length = 0
    let code = image.withUnsafeBytes { raw in
      CEncoding.withOptionalCString(comment) { text in
        CEncoding.withOptionalBytes(iccProfile) { icc, iccLength in
          message.withUnsafeMutableBufferPointer { reason in
            imc_webp_encode(
              raw.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt32(image.width), UInt32(image.height),
              image.bytesPerRow, Int32(image.pixelFormat.channelCount), &options, icc, iccLength, text, &out, &length,
              reason.baseAddress, reason.count)
          }
        }
      }
    }
    defer { imc_webp_free(out) }
    guard code == 0, let out else {
      let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      throw EncodeError(format: .webp, message: reason, path: nil)
    }
    return Array(UnsafeBufferPointer(start: out, count: length))
  }
}
