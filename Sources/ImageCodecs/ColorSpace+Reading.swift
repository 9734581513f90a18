internal import CImageCodecs
internal import CLCMS2Adapter
internal import SystemFiles

extension ColorSpace {
  /// The description a file's colour facts give, with an embedded profile judged by lcms2 (size,
  /// class, colour model) for an image whose numbers are `model`.
  /// - Parameters:
  ///   - color: The facts the decoder read with the header.
  ///   - model: The colour model of the stream.
  ///   - maxProfileBytes: The largest profile accepted (the decode limits' `maxChunkBytes`).
  init(_ color: imc_color, model: Model, maxProfileBytes: Int) {
    var note: String? = nil
    switch color.icc_state {
    case Int32(IMC_ICC_OVER_LIMIT):
      note = "ICC profile ignored: its APP2 segments add up to more than \(maxProfileBytes) bytes"
    case Int32(IMC_ICC_INCOMPLETE):
      note = "ICC profile ignored: its APP2 segments are missing, repeated or numbered inconsistently"
    case Int32(IMC_ICC_REFUSED):
      note = "ICC profile ignored: \(Self.text(of: color.note))"
    default: break
    }
    if let start = color.icc, color.icc_length > 0 {
      let bytes = Array(UnsafeBufferPointer(start: start, count: color.icc_length))
      let judged = ColorSpace(profile: bytes, model: model, maxProfileBytes: maxProfileBytes)
      if judged.ignoredProfile == nil {
        self = judged
        return
      }
      note = judged.ignoredProfile
    }
    let gamma = color.gamma > 0 ? Double(color.gamma) / 100_000 : nil
    let chromaticities =
      color.has_chromaticities != 0
      ? withUnsafeBytes(of: color.chromaticities) { Array($0.bindMemory(to: UInt32.self)).map { Double($0) / 100_000 } }
      : nil
    if color.has_nclx != 0 && model != .cmyk {
      let codes = CodePoints(
        primaries: Int(color.nclx_primaries), transfer: Int(color.nclx_transfer), matrix: Int(color.nclx_matrix),
        fullRange: color.nclx_full_range != 0)
      // sRGB's (or unspecified) primaries with sRGB's (or an unspecified) transfer: nothing to convert.
      let isSRGB = [1, 2].contains(codes.primaries) && [2, 13].contains(codes.transfer)
      self.init(
        model: model, origin: .nclx, isSRGB: isSRGB, chromaticities: model == .gray ? nil : chromaticities,
        codePoints: codes, ignoredProfile: note)
    } else if color.srgb_intent >= 0 && model != .cmyk {
      self.init(model: model, origin: .sRGBChunk, isSRGB: true, gamma: gamma, ignoredProfile: note)
    } else if let gamma, model != .cmyk {
      let chromaticities = model == .gray ? nil : chromaticities
      self.init(
        model: model, origin: .gammaChunks,
        isSRGB: Self.isSRGBLike(gamma: gamma, chromaticities: chromaticities),
        gamma: gamma, chromaticities: chromaticities, ignoredProfile: note)
    } else {
      self.init(model: model, origin: .unspecified, isSRGB: model != .cmyk, ignoredProfile: note)
    }
  }

  /// Judgements made so far (a file's header is read twice for a thumbnail, and a batch of one
  /// camera's photos carries one profile): by profile, model and limit.
  private struct JudgedKey: Hashable {
    let profile: [UInt8]
    let model: Model
    let maxProfileBytes: Int
  }
  private static let judged = Locked<[JudgedKey: ColorSpace]>([:])

  /// A profile judged for an image of `model`: in use, or ignored with the reason.
  init(profile: [UInt8], model: Model, maxProfileBytes: Int) {
    let key = JudgedKey(profile: profile, model: model, maxProfileBytes: maxProfileBytes)
    if let known = Self.judged.withLock({ $0[key] }) {
      self = known
      return
    }
    self.init(judging: profile, model: model, maxProfileBytes: maxProfileBytes)
    let made = self
    Self.judged.withLock { known in
      if known.count >= 16 { known.removeAll() }
      known[key] = made
    }
  }

  private init(judging profile: [UInt8], model: Model, maxProfileBytes: Int) {
    var facts = imc_profile_facts()
    profile.withUnsafeBufferPointer {
      imc_profile_inspect($0.baseAddress, $0.count, max(0, maxProfileBytes), model.lcmsModel, &facts)
    }
    let description = Self.text(of: facts.description)
    let problem: String? =
      switch facts.problem {
      case Int32(IMC_PROFILE_USABLE): nil
      case Int32(IMC_PROFILE_TRUNCATED):
        facts.declared_size > 0
          ? "truncated (\(profile.count) of \(facts.declared_size) bytes)" : "truncated (\(profile.count) bytes)"
      case Int32(IMC_PROFILE_TOO_LARGE): "\(profile.count) bytes, over the \(maxProfileBytes)-byte limit"
      case Int32(IMC_PROFILE_WRONG_CLASS): "a '\(Self.signature(facts.device_class))' profile, not an image's colour space"
      case Int32(IMC_PROFILE_WRONG_MODEL):
        "a \(Self.modelName(facts.model)) profile on a \(model.rawValue) image"
      case Int32(IMC_PROFILE_NO_LCMS2): Self.text(of: facts.reason)
      default: "not an ICC profile lcms2 can read"
      }
    if let problem {
      self.init(model: model, origin: .unspecified, isSRGB: model != .cmyk, ignoredProfile: "ICC profile ignored: \(problem)")
    } else {
      self.init(
        model: model, origin: .iccProfile, iccProfile: profile, profileDescription: description.isEmpty ? nil : description,
        isSRGB: facts.is_srgb != 0)
    }
  }

  /// The profile to convert from or embed: the embedded one, or one lcms2 makes from `gAMA`/`cHRM`
  /// or from `nclx` codes; `nil` for sRGB said by nothing, by an `sRGB` chunk or by `nclx`.
  var profileBytes: [UInt8]? {
    if let iccProfile { return iccProfile }
    if origin == .nclx, let codePoints, !isSRGB {
      var made: UnsafeMutablePointer<UInt8>? = nil
      let length: Int = {
        if let chromaticities, chromaticities.count == 8 {
          return chromaticities.withUnsafeBufferPointer {
            imc_profile_from_nclx(Int32(codePoints.transfer), $0.baseAddress, &made)
          }
        }
        return imc_profile_from_nclx(Int32(codePoints.transfer), nil, &made)
      }()
      defer { imc_lcms_free(made) }
      guard let made, length > 0 else { return nil }
      return Array(UnsafeBufferPointer(start: made, count: length))
    }
    guard origin == .gammaChunks, let gamma else { return nil }
    var made: UnsafeMutablePointer<UInt8>? = nil
    let length: Int = {
      if let chromaticities, chromaticities.count == 8 {
        return chromaticities.withUnsafeBufferPointer { imc_profile_from_gamma(model.lcmsModel, gamma, $0.baseAddress, &made) }
      }
      return imc_profile_from_gamma(model.lcmsModel, gamma, nil, &made)
    }()
    defer { imc_lcms_free(made) }
    guard let made, length > 0 else { return nil }
    return Array(UnsafeBufferPointer(start: made, count: length))
  }

  var lcmsModel: Int32 { model.lcmsModel }

  /// A gamma of 1/2.2 within 1%, with no primaries or sRGB's within 0.01: as good as sRGB.
  static func isSRGBLike(gamma: Double, chromaticities: [Double]?) -> Bool {
    guard abs(gamma * 2.2 - 1) < 0.01 else { return false }
    guard let chromaticities else { return true }
    let srgb = [0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06]
    return chromaticities.count == 8 && zip(chromaticities, srgb).allSatisfy { abs($0 - $1) < 0.01 }
  }

  /// A NUL-terminated C character array as a string.
  static func text<T>(of characters: T) -> String {
    withUnsafeBytes(of: characters) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
  }

  static func signature(_ value: UInt32) -> String {
    String(decoding: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }, as: UTF8.self)
  }

  static func modelName(_ model: Int32) -> String {
    switch model {
    case Int32(IMC_MODEL_GRAY): "gray"
    case Int32(IMC_MODEL_RGB): "rgb"
    case Int32(IMC_MODEL_CMYK): "cmyk"
    default: "non-image (Lab, XYZ or n-colour)"
    }
  }
}

extension ColorSpace.Model {
  var lcmsModel: Int32 {
    switch self {
    case .gray: Int32(IMC_MODEL_GRAY)
    case .rgb: Int32(IMC_MODEL_RGB)
    case .cmyk: Int32(IMC_MODEL_CMYK)
    }
  }
}

extension ImageHeader.ColorType {
  /// The colour model of a stream of this type.
  var colorModel: ColorSpace.Model {
    switch self {
    case .gray, .grayAlpha: .gray
    case .cmyk, .ycck: .cmyk
    default: .rgb
    }
  }
}
