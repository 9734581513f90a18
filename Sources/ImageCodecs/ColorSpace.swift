/// What an image's numbers mean as colours: the colour description its file carries (an ICC profile,
/// a PNG `sRGB` chunk, PNG `gAMA`/`cHRM`, a HEIF's `nclx` codes), or none, which by convention means
/// sRGB.
///
/// ```swift
/// let header = try ImageDecoder.probe(contentsOf: "phone.jpg")
/// if !header.colorSpace.isSRGB {
///   print(header.colorSpace.profileDescription ?? "a non-sRGB space")  // "Display P3"
/// }
/// let srgb = try ImageDecoder.decode(contentsOf: "phone.jpg", options: DecodeOptions(colorSpace: .sRGB))
/// ```
///
/// ``ImageHeader/colorSpace`` describes the file; ``Image/colorSpace`` the decoded pixels (the
/// file's space, or sRGB once converted; a CMYK JPEG's pixels are always RGB, converted through its
/// profile when it has a usable one). An embedded profile that is unusable (truncated, over the
/// size limit, not an image's colour space, of the wrong colour model) is ignored: the numbers are
/// then taken as sRGB, and ``ignoredProfile`` says why.
public struct ColorSpace: Sendable, Equatable, CustomStringConvertible {
  /// The colour model of the numbers.
  public enum Model: String, Sendable, Equatable {
    /// One gray channel.
    case gray
    /// Red, green, blue.
    case rgb
    /// Cyan, magenta, yellow, black (JPEG only; decoded to RGB).
    case cmyk
  }

  /// Where the description comes from.
  public enum Origin: String, Sendable, Equatable {
    /// The file says nothing: sRGB by convention (also every image converted to sRGB).
    case unspecified
    /// An embedded ICC profile (JPEG `APP2 ICC_PROFILE`, PNG `iCCP`, WebP `ICCP`).
    case iccProfile
    /// A PNG `sRGB` chunk.
    case sRGBChunk
    /// PNG `gAMA`, with `cHRM` when present (sRGB's primaries otherwise).
    case gammaChunks
    /// A HEIF's `nclx` box: primaries and transfer by their ITU-T H.273 codes (``codePoints``).
    case nclx
  }

  /// The ITU-T H.273 codes of a HEIF's `nclx` box (the same codes as video's): colour primaries
  /// (1 BT.709/sRGB, 9 BT.2020, 12 Display P3), transfer characteristics (13 sRGB, 1 BT.709, 16 PQ,
  /// 18 HLG), matrix coefficients and the range (libheif has already applied these two).
  public struct CodePoints: Sendable, Equatable, CustomStringConvertible {
    /// Colour primaries (`colour_primaries`).
    public let primaries: Int
    /// Transfer characteristics (`transfer_characteristics`).
    public let transfer: Int
    /// Matrix coefficients (`matrix_coefficients`).
    public let matrix: Int
    /// Whether the samples use the full range.
    public let fullRange: Bool

    /// Creates codes.
    /// - Parameters:
    ///   - primaries: Colour primaries.
    ///   - transfer: Transfer characteristics.
    ///   - matrix: Matrix coefficients.
    ///   - fullRange: Full range.
    public init(primaries: Int, transfer: Int, matrix: Int, fullRange: Bool) {
      self.primaries = primaries
      self.transfer = transfer
      self.matrix = matrix
      self.fullRange = fullRange
    }

    /// Whether the transfer is a high-dynamic-range one (PQ or HLG), mapped to SDR on conversion.
    public var isHDR: Bool { transfer == 16 || transfer == 18 }

    /// `12/13/6 full`, as the codes are usually written.
    public var description: String { "\(primaries)/\(transfer)/\(matrix) \(fullRange ? "full" : "limited")" }
  }

  /// The colour model.
  public let model: Model
  /// Where the description comes from.
  public let origin: Origin
  /// The embedded ICC profile in use, as stored in the file; `nil` when there is none or it was ignored.
  public let iccProfile: [UInt8]?
  /// The profile's own description (its `desc` tag), such as `Display P3`; `nil` without one.
  public let profileDescription: String?
  /// Whether the numbers are sRGB's (no description, an `sRGB` chunk, a profile equal to sRGB within
  /// 1/255, or a gamma of 1/2.2 within 1% with sRGB's primaries): nothing to convert.
  public let isSRGB: Bool
  /// PNG `gAMA`: the file gamma (0.45455 for a 2.2 display gamma); `nil` when absent.
  public let gamma: Double?
  /// PNG `cHRM`: white x, y, then red, green and blue x, y; `nil` when absent.
  public let chromaticities: [Double]?
  /// HEIF `nclx`: the codes; `nil` for every other origin.
  public let codePoints: CodePoints?
  /// Why an embedded profile was not used (it is then as if absent), such as
  /// `ICC profile ignored: truncated (1000 of 3144 bytes)`; `nil` otherwise.
  public let ignoredProfile: String?

  /// Creates a description.
  /// - Parameters:
  ///   - model: The colour model.
  ///   - origin: Where it comes from.
  ///   - iccProfile: The profile in use, if any.
  ///   - profileDescription: Its description, if any.
  ///   - isSRGB: Whether the numbers are sRGB's.
  ///   - gamma: PNG `gAMA`, if any.
  ///   - chromaticities: PNG `cHRM` or the `nclx` primaries' coordinates, if any.
  ///   - codePoints: HEIF `nclx` codes, if any.
  ///   - ignoredProfile: Why an embedded profile was ignored, if one was.
  public init(
    model: Model, origin: Origin, iccProfile: [UInt8]? = nil, profileDescription: String? = nil, isSRGB: Bool,
    gamma: Double? = nil, chromaticities: [Double]? = nil, codePoints: CodePoints? = nil,
    ignoredProfile: String? = nil
  ) {
    self.model = model
    self.origin = origin
    self.iccProfile = iccProfile
    self.profileDescription = profileDescription
    self.isSRGB = isSRGB
    self.gamma = gamma
    self.chromaticities = chromaticities
    self.codePoints = codePoints
    self.ignoredProfile = ignoredProfile
  }

  /// sRGB, said by nothing: what an image without a colour description is.
  public static let sRGB = ColorSpace(model: .rgb, origin: .unspecified, isSRGB: true)

  /// sRGB in a model (gray with sRGB's tone curve for `.gray`).
  /// - Parameter model: The colour model.
  /// - Returns: The description.
  public static func sRGB(_ model: Model) -> ColorSpace {
    ColorSpace(model: model, origin: .unspecified, isSRGB: true)
  }

  /// The same numbers said by nothing, keeping why a profile was ignored.
  func unspecified(model: Model? = nil, note: String? = nil) -> ColorSpace {
    ColorSpace(
      model: model ?? self.model, origin: .unspecified, isSRGB: true, ignoredProfile: note ?? ignoredProfile)
  }

  /// `sRGB`, `Display P3 (ICC profile)`, `gamma 0.55556 (PNG gAMA)`, `nclx 12/13/6 full`,
  /// `CMYK, no profile`.
  public var description: String {
    switch origin {
    case .unspecified: model == .cmyk ? "CMYK, no profile" : "sRGB"
    case .iccProfile: "\(profileDescription.flatMap { $0.isEmpty ? nil : $0 } ?? "unnamed") (ICC profile)"
    case .sRGBChunk: "sRGB (PNG sRGB chunk)"
    case .gammaChunks:
      "gamma \(gamma.map { String(format: $0) } ?? "?")\(chromaticities == nil ? "" : " with primaries") (PNG gAMA)"
    case .nclx: "nclx \(codePoints.map(\.description) ?? "?")"
    }
  }
}

extension String {
  /// A value with at most five decimals, as PNG stores them.
  fileprivate init(format value: Double) {
    let scaled = (value * 100_000).rounded()
    var text = String(Int(scaled) / 100_000) + "."
    var fraction = String(Int(scaled) % 100_000)
    while fraction.count < 5 { fraction = "0" + fraction }
    while fraction.hasSuffix("0") && fraction.count > 1 { fraction.removeLast() }
    text += fraction
    self = text
  }
}
