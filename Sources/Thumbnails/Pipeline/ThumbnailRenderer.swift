import ImageCodecs

/// Turns a shrink-on-load decode into the finished thumbnail pixels: premultiply, box shrink,
/// filter (with the crop built into the taps), unpremultiply (or flatten for JPEG), turn upright.
enum ThumbnailRenderer {
  /// Renders the planned thumbnail.
  /// - Parameters:
  ///   - decoded: The image as decoded with `plan.jpegScale` (8-bit).
  ///   - plan: The plan the decode followed.
  ///   - filter: The final filter.
  ///   - flatten: Composite alpha over `background` and drop it (for JPEG output).
  ///   - background: White by default.
  /// - Returns: The thumbnail, upright when the plan applies the orientation, orientation `.up`.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when a buffer cannot be allocated.
  static func render(
    _ decoded: Image, plan: ThumbnailPlan, filter: ResampleFilter, flatten: Bool,
    background: ThumbnailBackground = .white
  ) throws(DecodeError) -> Image {
    let (h, v) = (plan.horizontal, plan.vertical)
    let boxed: Image
    if h.boxFactor > 1 || v.boxFactor > 1 {
      // Premultiplies on the way through, at full precision, in the one pass over the large image.
      boxed = try BoxShrink.shrink(decoded, factorX: h.boxFactor, factorY: v.boxFactor, premultiplying: true)
    } else {
      boxed = try PremultipliedAlpha.premultiplied(decoded)
    }
    return try finish(boxed, plan: plan, filter: filter, flatten: flatten, background: background)
  }

  /// Finishes a thumbnail from its box-shrunk (or, without a box shrink, merely premultiplied)
  /// pixels: the filter, unpremultiply or flatten, and orientation. ``ThumbnailStream`` builds that
  /// image row by row as the decoder delivers rows; ``render(_:plan:filter:flatten:)`` from a whole
  /// decode. Both give the same pixels.
  /// - Parameters:
  ///   - boxed: The premultiplied image after the plan's box shrink.
  ///   - plan: The plan.
  ///   - filter: The final filter.
  ///   - flatten: Composite alpha over `background` and drop it (for JPEG output).
  ///   - background: White by default.
  /// - Returns: The thumbnail, upright when the plan applies the orientation, orientation `.up`.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when a buffer cannot be allocated.
  static func finish(
    _ boxed: consuming Image, plan: ThumbnailPlan, filter: ResampleFilter, flatten: Bool,
    background: ThumbnailBackground = .white
  ) throws(DecodeError) -> Image {
    let (h, v) = (plan.horizontal, plan.vertical)
    var working = boxed  // the only reference: unpremultiplying in place copies nothing
    working.orientation = .up
    // An attention crop needs the whole resampled image to choose its window; a centre crop is
    // built into the taps.
    let whole = plan.cropAnchor == .attention
    let horizontal = weights(plan: h, inputCount: working.width, filter: filter, whole: whole)
    let vertical = weights(plan: v, inputCount: working.height, filter: filter, whole: whole)
    let unchanged =
      horizontal.copyOffset == 0 && vertical.copyOffset == 0 && horizontal.outputCount == working.width
      && vertical.outputCount == working.height
    if flatten {
      if !unchanged {
        working = try SeparableResampler.resample(
          working, horizontal: horizontal, vertical: vertical, unpremultiplying: false)
      }
      working = try PremultipliedAlpha.flattened(working, over: background)
    } else if unchanged {
      try PremultipliedAlpha.unpremultiply(&working)
    } else {
      working = try SeparableResampler.resample(
        working, horizontal: horizontal, vertical: vertical, unpremultiplying: true)
    }
    if whole {
      let origin = AttentionCrop.origin(in: working, width: h.output, height: v.output)
      working = try working.cropped(x: origin.x, y: origin.y, width: h.output, height: v.output)
    }
    working.orientation = plan.orientation
    return try working.oriented()
  }

  private static func weights(
    plan axis: ThumbnailPlan.Axis, inputCount: Int, filter: ResampleFilter, whole: Bool
  )
    -> FilterWeights
  {
    // The decoder's size should be the planned one; if it is not, trust the pixels.
    let extent = inputCount == axis.boxed ? axis.boxedExtent : Double(inputCount)
    return FilterWeights(
      filter: filter, inputCount: inputCount, inputExtent: extent, outputCount: axis.scaled,
      window: whole ? 0..<axis.scaled : axis.cropOffset..<(axis.cropOffset + axis.output))
  }
}
