import ImageCodecs

/// Resamples an 8-bit image with precomputed taps: the vertical pass first (whole rows, wide
/// vector loops) into 16-bit intermediate rows, then the horizontal pass on the fewer rows that
/// remain. Colour is filtered as stored, so callers premultiply alpha first.
enum SeparableResampler {
  /// Resamples `image` to `horizontal.outputCount` x `vertical.outputCount` pixels.
  /// - Parameters:
  ///   - image: An 8-bit image (gray8, grayAlpha8, rgb8 or rgba8).
  ///   - horizontal: Taps along x, reading `image.width` pixels.
  ///   - vertical: Taps along y, reading `image.height` rows.
  ///   - unpremultiplying: `image` has premultiplied alpha and the result should have straight alpha
  ///     (divided at full precision inside the horizontal pass).
  /// - Returns: The resampled image, same pixel format and orientation.
  static func resample(_ image: Image, horizontal: FilterWeights, vertical: FilterWeights, unpremultiplying: Bool)
    -> Image
  {
    let channels = image.pixelFormat.channelCount
    let rowLength = image.width * channels
    let rows = vertical.outputCount
    var result = Image(
      width: horizontal.outputCount, height: rows, pixelFormat: image.pixelFormat,
      orientation: image.orientation)
    let intermediateStride = rowLength + HorizontalPass.rowPadding
    let intermediate = UnsafeMutablePointer<Int16>.allocate(capacity: intermediateStride * rows)
    defer { intermediate.deallocate() }
    for row in 0..<rows {
      (intermediate + row * intermediateStride + rowLength).initialize(
        repeating: 0, count: HorizontalPass.rowPadding)
    }
    let inStride = image.bytesPerRow
    let outStride = result.bytesPerRow
    image.withUnsafeBytes { inBytes in
      VerticalPass.run(
        input: inBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), inputStride: inStride,
        rowLength: rowLength,
        weights: vertical, output: intermediate, outputStride: intermediateStride)
    }
    result.withUnsafeMutableBytes { outBytes in
      HorizontalPass.run(
        input: intermediate, inputStride: intermediateStride, rowCount: rows, channels: channels,
        weights: horizontal,
        output: outBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), outputStride: outStride,
        unpremultiplying: unpremultiplying && image.hasAlpha)
    }
    return result
  }
}
