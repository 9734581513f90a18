import ImageCodecs

/// The colour space a thumbnail's pixels are written in.
///
/// ```swift
/// var options = ThumbnailOptions(size: .longestSide(256))
/// options.colorSpace = .source   // keep a Display P3 photo's numbers and embed its profile
/// ```
public enum ThumbnailColorSpace: String, Sendable, Hashable, CaseIterable {
  /// sRGB: the source's profile (or PNG `gAMA`/`cHRM`) is applied to the shrunk pixels with lcms2,
  /// and the file carries no profile (untagged is sRGB to every viewer). The default.
  case sRGB = "srgb"
  /// The source's: its numbers are kept and its profile embedded (a profile lcms2 makes from PNG
  /// `gAMA`/`cHRM` when the source has no ICC profile). A CMYK source is still converted to sRGB
  /// (a thumbnail is never CMYK).
  case source

  /// Labels a rendered thumbnail with its pixels' colour space, then converts it to sRGB when asked.
  /// - Parameters:
  ///   - image: The thumbnail, in the source's model (gray or RGB).
  ///   - pixels: The colour space of the decoded pixels it was made from.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` only.
  func apply(to image: inout Image, pixels: ColorSpace) throws(DecodeError) {
    let model: ColorSpace.Model = image.pixelFormat.isColor ? .rgb : .gray
    image.colorSpace =
      pixels.model == model
      ? pixels
      : ColorSpace(model: model, origin: .unspecified, isSRGB: true, ignoredProfile: pixels.ignoredProfile)
    if self == .sRGB { image = try image.convertedToSRGB() }
  }
}
