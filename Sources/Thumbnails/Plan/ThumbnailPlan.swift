public import ImageCodecs

/// The arithmetic of one thumbnail, decided before any pixel is decoded: how far the JPEG decoder
/// scales on load, how much an integer box filter shrinks next, what the final filter resamples
/// to, what is cropped, and how the result is turned upright.
///
/// The steps follow libvips' thumbnail: the DCT scale (1/2, 1/4 or 1/8) is the smallest that
/// still leaves at least a factor of two for the final filter; the box shrink takes the integer
/// part of what remains, again leaving at least a factor of two; the filter does the rest to the
/// exact size. No axis ever becomes 0, and without ``ThumbnailOptions/allowsUpscaling`` no axis
/// grows.
///
/// ```swift
/// let plan = ThumbnailPlan(sourceWidth: 6336, sourceHeight: 4752, orientation: .up, format: .jpeg,
///                          options: ThumbnailOptions(size: .longestSide(256)))
/// // plan.jpegScale == .eighth, decoded 792x594, no box shrink, resampled to 256x192
/// ```
public struct ThumbnailPlan: Sendable, Equatable {
  /// What happens along one stored axis (x or y, before orientation is applied).
  public struct Axis: Sendable, Equatable {
    /// The stored length of the source.
    public let source: Int
    /// The length the decoder produces (after JPEG DCT scaling; `source` otherwise).
    public let decoded: Int
    /// The integer box-shrink factor (1 when there is no box shrink).
    public let boxFactor: Int
    /// The length after the box shrink: `decoded / boxFactor`, rounded up (the last box may be partial).
    public let boxed: Int
    /// The length of the whole resampled image, before cropping.
    public let scaled: Int
    /// The first resampled pixel kept by the crop.
    public let cropOffset: Int
    /// The number of resampled pixels kept.
    public let output: Int
    /// How many source pixels the `boxed` pixels span, in box units. The last box can be partial, so
    /// this can be fractional; the filter maps exactly this extent onto `scaled` pixels.
    public let boxedExtent: Double

    /// Box-filter pixels per resampled pixel (above 1 when reducing).
    public var reduceFactor: Double { boxedExtent / Double(scaled) }
  }

  /// The scale to decode with: a JPEG's DCT scale, an opaque still WebP's scaled output (`.full`
  /// for PNG, or when no scaling applies).
  public let jpegScale: JPEGScale
  /// The stored x axis.
  public let horizontal: Axis
  /// The stored y axis.
  public let vertical: Axis
  /// The transform applied after resizing (`.up` when orientation is not applied).
  public let orientation: ExifOrientation
  /// Where the crop window goes. With ``ThumbnailCropAnchor/centre`` it is each axis's
  /// ``Axis/cropOffset``; with ``ThumbnailCropAnchor/attention`` (only when something is cropped)
  /// the whole `scaled` image is resampled and the window is placed on its pixels, so the offsets
  /// are known only then.
  public let cropAnchor: ThumbnailCropAnchor

  /// The final (upright) width.
  public var width: Int { orientation.swapsDimensions ? vertical.output : horizontal.output }
  /// The final (upright) height.
  public var height: Int { orientation.swapsDimensions ? horizontal.output : vertical.output }

  /// Plans a thumbnail.
  /// - Parameters:
  ///   - sourceWidth: Stored width of the source, at least 1.
  ///   - sourceHeight: Stored height of the source, at least 1.
  ///   - orientation: The source's EXIF orientation.
  ///   - format: The source's format.
  ///   - options: Size, fit, upscaling and orientation choices (other options do not change the plan).
  ///   - shrinksOnLoad: Whether the decoder can scale this source on load (its header's
  ///     ``/ImageCodecs/ImageHeader/shrinksOnLoad``: a JPEG, an opaque still WebP); `nil`, the
  ///     default, means only a JPEG can.
  public init(
    sourceWidth: Int, sourceHeight: Int, orientation: ExifOrientation, format: ImageFormat,
    options: ThumbnailOptions, shrinksOnLoad: Bool? = nil
  ) {
    self.init(
      sourceWidth: sourceWidth, sourceHeight: sourceHeight, orientation: orientation, format: format,
      options: options, shrinksOnLoad: shrinksOnLoad, decodedAt: nil)
  }

  /// Plans a thumbnail; with `decodedAt`, from a decode at that scale rather than the one the
  /// plan would choose (several sizes made from one decode: ``Thumbnailer/makeThumbnails(forFileAt:sizes:)``).
  init(
    sourceWidth: Int, sourceHeight: Int, orientation: ExifOrientation, format: ImageFormat,
    options: ThumbnailOptions, shrinksOnLoad: Bool?, decodedAt forced: JPEGScale?
  ) {
    let sourceWidth = max(1, sourceWidth)
    let sourceHeight = max(1, sourceHeight)
    let applied = options.appliesOrientation ? orientation : .up
    let swapped = applied.swapsDimensions
    let upright = swapped ? (sourceHeight, sourceWidth) : (sourceWidth, sourceHeight)
    let target = Self.target(upright: upright, options: options)
    let scaled = swapped ? (target.scaled.1, target.scaled.0) : target.scaled
    let kept = swapped ? (target.kept.1, target.kept.0) : target.kept

    var eighths = 8
    if shrinksOnLoad ?? (format == .jpeg) {
      // Shrink on load while the remaining factor stays at least 2 (libvips' rule).
      for candidate in [1, 2, 4]
      where sourceWidth >= 16 / candidate * scaled.0 && sourceHeight >= 16 / candidate * scaled.1 {
        eighths = candidate
        break
      }
    }
    if let forced { eighths = forced.eighths }
    jpegScale = JPEGScale(eighths: eighths)
    horizontal = Self.axis(source: sourceWidth, eighths: eighths, scaled: scaled.0, kept: kept.0)
    vertical = Self.axis(source: sourceHeight, eighths: eighths, scaled: scaled.1, kept: kept.1)
    self.orientation = applied
    let crops = horizontal.output < horizontal.scaled || vertical.output < vertical.scaled
    cropAnchor = crops ? options.cropAnchor : .centre
  }

  /// The resampled size before cropping and the size kept, both upright.
  static func target(upright: (Int, Int), options: ThumbnailOptions) -> (
    scaled: (Int, Int), kept: (Int, Int)
  ) {
    let (width, height) = upright
    switch options.size {
    case .longestSide(let requested):
      let longest = max(width, height)
      let requested = clampedSide(requested)
      let side = options.allowsUpscaling ? requested : min(requested, longest)
      let size =
        width >= height
        ? (side, roundedRatio(height, times: side, over: width))
        : (roundedRatio(width, times: side, over: height), side)
      return (size, size)
    case .width(let requested):
      let side = options.allowsUpscaling ? clampedSide(requested) : min(clampedSide(requested), width)
      let size = (side, roundedRatio(height, times: side, over: width))
      return (size, size)
    case .height(let requested):
      let side = options.allowsUpscaling ? clampedSide(requested) : min(clampedSide(requested), height)
      let size = (roundedRatio(width, times: side, over: height), side)
      return (size, size)
    case .box(let boxWidth, let boxHeight):
      let boxWidth = clampedSide(boxWidth)
      let boxHeight = clampedSide(boxHeight)
      // Inside: the smaller scale wins (boxWidth/width <= boxHeight/height means width decides).
      // Cover: the larger scale wins.
      let widthDecides =
        options.fit == .inside
        ? boxWidth * height <= boxHeight * width : boxWidth * height >= boxHeight * width
      var size =
        widthDecides
        ? (boxWidth, roundedRatio(height, times: boxWidth, over: width))
        : (roundedRatio(width, times: boxHeight, over: height), boxHeight)
      if !options.allowsUpscaling && (size.0 > width || size.1 > height) { size = (width, height) }
      let kept = options.fit == .inside ? size : (min(boxWidth, size.0), min(boxHeight, size.1))
      return (size, kept)
    }
  }

  /// A requested side limited to 1…``ThumbnailSize/maximumSide``.
  static func clampedSide(_ side: Int) -> Int { min(max(1, side), ThumbnailSize.maximumSide) }

  /// `value * numerator / denominator`, rounded half up, at least 1.
  static func roundedRatio(_ value: Int, times numerator: Int, over denominator: Int) -> Int {
    max(1, (2 * value * numerator + denominator) / (2 * denominator))
  }

  static func axis(source: Int, eighths: Int, scaled: Int, kept: Int) -> Axis {
    let decoded = JPEGScale(eighths: eighths).scaled(source)
    let boxFactor = max(1, decoded / (2 * scaled))
    return Axis(
      source: source, decoded: decoded, boxFactor: boxFactor,
      boxed: (decoded + boxFactor - 1) / boxFactor,
      scaled: scaled, cropOffset: (scaled - kept) / 2, output: kept,
      boxedExtent: Double(source) * Double(eighths) / 8 / Double(boxFactor))
  }
}
