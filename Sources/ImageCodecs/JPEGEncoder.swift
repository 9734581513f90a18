internal import CImageCodecs

/// JPEG through libjpeg-turbo: a quality (1…100), optionally progressive; Huffman tables always
/// optimized. Alpha, if any, is dropped. A comment is a `COM` segment right after the JFIF header,
/// an ICC profile `APP2 ICC_PROFILE` segments after it.
public struct JPEGEncoder: ImageEncoding, Hashable {
  /// 1…100.
  public var quality: Int
  /// Progressive scans.
  public var progressive: Bool
  /// Luma sampling factors (1 or 2 each; chroma 1); (0, 0) is 4:2:0. For tests.
  var lumaSampling: (horizontal: Int, vertical: Int) = (0, 0)
  /// Cb's and Cr's sampling factors (1…4), with `lumaSampling` then up to 4 too; (0, 0) is 1x1.
  /// For tests of every layout libjpeg reads.
  var cbSampling: (horizontal: Int, vertical: Int) = (0, 0)
  var crSampling: (horizontal: Int, vertical: Int) = (0, 0)
  /// MCUs between restart markers; 0 for none. For tests.
  var restartInterval = 0

  /// Creates the encoder.
  /// - Parameters:
  ///   - quality: 1…100 (clamped), 85 by default.
  ///   - progressive: `false` by default.
  public init(quality: Int = 85, progressive: Bool = false) {
    self.quality = min(100, max(1, quality))
    self.progressive = progressive
  }

  /// Whether chroma keeps the full resolution (4:4:4: luma and chroma sampled alike) instead of
  /// being halved both ways (4:2:0, the default): sharper colour edges, larger files.
  public var keepsFullChroma: Bool {
    get { lumaSampling == (1, 1) && cbSampling == (0, 0) && crSampling == (0, 0) }
    set { lumaSampling = newValue ? (1, 1) : (0, 0) }
  }

  /// `.jpeg`.
  public var format: ImageFormat { .jpeg }
  /// `jpeg/85`, `jpeg/85p` when progressive, then `/444` with ``keepsFullChroma``.
  public var settingsLabel: String { "jpeg/\(quality)\(progressive ? "p" : "")\(keepsFullChroma ? "/444" : "")" }
  /// `false`.
  public var storesAlpha: Bool { false }

  /// Encodes gray8, rgb8 and rgba8/grayAlpha8 (alpha dropped) pixels.
  public func encode(_ image: Image, comment: String?, iccProfile: [UInt8]?) throws(EncodeError) -> [UInt8] {
    var options = imc_jpeg_options(
      quality: Int32(clamping: quality), progressive: progressive ? 1 : 0, optimize: 1,
      luma_h_sampling: Int32(clamping: lumaSampling.horizontal), luma_v_sampling: Int32(clamping: lumaSampling.vertical),
      restart_interval: Int32(clamping: restartInterval),
      cb_h_sampling: Int32(clamping: cbSampling.horizontal), cb_v_sampling: Int32(clamping: cbSampling.vertical),
      cr_h_sampling: Int32(clamping: crSampling.horizontal), cr_v_sampling: Int32(clamping: crSampling.vertical))
    return try CEncoding.run(image, format: .jpeg, comment: comment, iccProfile: iccProfile) {
      pixels, comment, icc, iccLength, buffer, status in
      imc_jpeg_encode(
        pixels, UInt32(image.width), UInt32(image.height), image.bytesPerRow, image.pixelFormat.layout, &options,
        comment, icc, iccLength, &buffer, &status)
    }
  }

  /// Whether two encoders write the same bytes: every setting equal.
  public static func == (lhs: JPEGEncoder, rhs: JPEGEncoder) -> Bool {
    lhs.quality == rhs.quality && lhs.progressive == rhs.progressive && lhs.lumaSampling == rhs.lumaSampling
      && lhs.restartInterval == rhs.restartInterval && lhs.cbSampling == rhs.cbSampling
      && lhs.crSampling == rhs.crSampling
  }

  /// Hashes the quality and the progressive setting (equal encoders hash alike).
  public func hash(into hasher: inout Hasher) {
    hasher.combine(quality)
    hasher.combine(progressive)
  }
}
