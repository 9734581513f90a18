internal import CImageCodecs
internal import CLCMS2Adapter
internal import SystemFiles

/// An lcms2 transform from one colour space to sRGB for one pixel layout; freed with the object.
final class ColorTransform: @unchecked Sendable {
  /// Why lcms2 built no transform, in its words.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }
  typealias Outcome = Result<ColorTransform, Failure>

  let pointer: OpaquePointer

  /// The transforms made so far, by profile and layouts (building one takes lcms2 far longer
  /// than converting a thumbnail's pixels: a batch of one camera's photos builds it once). Transforms
  /// are made with lcms2's cache off, so one can be used from several threads at once.
  private struct CacheKey: Hashable {
    let profile: [UInt8]?
    let input: Int32
    let output: Int32
  }
  private static let cache = Locked<[CacheKey: ColorTransform]>([:])
  private static let cacheLimit = 8

  /// A transform reading `input` pixels in `colorSpace` and writing `output` pixels in sRGB.
  /// - Returns: The transform, or the reason lcms2 could not build one.
  static func make(from colorSpace: ColorSpace, input: Int32, output: Int32) -> ColorTransform.Outcome {
    let profile = colorSpace.profileBytes
    let key = CacheKey(profile: profile, input: input, output: output)
    if let known = cache.withLock({ $0[key] }) { return .success(known) }
    let made = build(profile, input: input, output: output)
    if case .success(let transform) = made {
      cache.withLock { known in
        if known.count >= cacheLimit { known.removeAll() }
        known[key] = transform
      }
    }
    return made
  }

  private static func build(_ profile: [UInt8]?, input: Int32, output: Int32) -> ColorTransform.Outcome {
    var message = [CChar](repeating: 0, count: 160)
    let made: OpaquePointer? = message.withUnsafeMutableBufferPointer { text in
      guard let profile else {
        return imc_transform_create(nil, 0, input, output, text.baseAddress, text.count)
      }
      return profile.withUnsafeBufferPointer {
        imc_transform_create($0.baseAddress, $0.count, input, output, text.baseAddress, text.count)
      }
    }
    guard let made else {
      return .failure(Failure(description: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
    }
    return .success(ColorTransform(made))
  }

  private init(_ pointer: OpaquePointer) { self.pointer = pointer }
  deinit { imc_transform_destroy(pointer) }

  /// Transforms `rows` rows in place.
  func apply(_ base: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, rows: Int) {
    imc_transform_rows(pointer, base, stride, base, stride, UInt32(width), UInt32(rows))
  }
}

extension PixelFormat {
  /// The adapter's layout code for this format.
  var transformLayout: Int32 {
    switch self {
    case .gray8: Int32(IMC_PIXELS_GRAY8)
    case .grayAlpha8: Int32(IMC_PIXELS_GRAYALPHA8)
    case .rgb8: Int32(IMC_PIXELS_RGB8)
    case .rgba8: Int32(IMC_PIXELS_RGBA8)
    case .gray16: Int32(IMC_PIXELS_GRAY16)
    case .grayAlpha16: Int32(IMC_PIXELS_GRAYALPHA16)
    case .rgb16: Int32(IMC_PIXELS_RGB16)
    case .rgba16: Int32(IMC_PIXELS_RGBA16)
    }
  }

  /// The colour model of the pixels.
  var colorModel: ColorSpace.Model { isColor ? .rgb : .gray }
}

extension Image {
  /// This image with its pixels converted to sRGB through its ``colorSpace`` (lcms2, relative
  /// colorimetric with black-point compensation), in place when the buffer is not shared; the
  /// result's ``colorSpace`` is sRGB. An image already in sRGB comes back as it is.
  ///
  /// A colour space lcms2 cannot build a transform from leaves the pixels unchanged: the result is
  /// then labelled sRGB with ``ColorSpace/ignoredProfile`` saying why.
  /// - Returns: The converted image.
  /// - Throws: ``DecodeError/Kind/outOfMemory`` when the pixels are shared and cannot be copied.
  public func convertedToSRGB() throws(DecodeError) -> Image {
    var image = self
    try image.convertToSRGB()
    return image
  }

  /// Converts the pixels to sRGB in place; see ``convertedToSRGB()``.
  mutating func convertToSRGB() throws(DecodeError) {
    guard !colorSpace.isSRGB, colorSpace.model == pixelFormat.colorModel else {
      if !colorSpace.isSRGB { colorSpace = colorSpace.unspecified(model: pixelFormat.colorModel) }
      return
    }
    let layout = pixelFormat.transformLayout
    switch ColorTransform.make(from: colorSpace, input: layout, output: layout) {
    case .failure(let reason):
      colorSpace = colorSpace.unspecified(note: "ICC profile ignored: \(reason)")
    case .success(let transform):
      let (width, height, stride) = (self.width, self.height, bytesPerRow)
      try withUnsafeMutableBytes { pixels in
        transform.apply(pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), stride: stride, width: width, rows: height)
      }
      colorSpace = .sRGB(pixelFormat.colorModel)
    }
  }
}
