import ImageCodecs

/// Resamples an 8-bit image with precomputed taps: the vertical pass first (whole rows, wide
/// vector loops) into a 16-bit column-major intermediate, then the horizontal pass down its
/// columns with the same kind of loop. Colour is filtered as stored, so callers premultiply
/// alpha first.
enum SeparableResampler {
  /// Resamples `image` to `horizontal.outputCount` x `vertical.outputCount` pixels.
  /// - Parameters:
  ///   - image: An 8-bit image (gray8, grayAlpha8, rgb8 or rgba8).
  ///   - horizontal: Taps along x, reading `image.width` pixels.
  ///   - vertical: Taps along y, reading `image.height` rows.
  ///   - unpremultiplying: `image` has premultiplied alpha and the result should have straight alpha
  ///     (divided at full precision inside the horizontal pass).
  /// - Returns: The resampled image, same pixel format and orientation.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the result or a working buffer cannot be allocated.
  static func resample(_ image: Image, horizontal: FilterWeights, vertical: FilterWeights, unpremultiplying: Bool)
    throws(DecodeError) -> Image
  {
    let channels = image.pixelFormat.channelCount
    var result = try Image(
      width: horizontal.outputCount, height: vertical.outputCount, pixelFormat: image.pixelFormat,
      orientation: image.orientation)
    let intermediate = try ColumnMajorRows(columns: image.width, rows: vertical.outputCount, channels: channels)
    defer { intermediate.deallocate() }
    let inStride = image.bytesPerRow
    let outStride = result.bytesPerRow
    try image.withUnsafeBytes { (inBytes) throws(DecodeError) in
      try VerticalPass.run(
        input: inBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), inputStride: inStride, width: image.width,
        channels: channels, weights: vertical, output: intermediate)
    }
    try result.withUnsafeMutableBytes { (outBytes) throws(DecodeError) in
      try HorizontalPass.run(
        input: intermediate, channels: channels, weights: horizontal,
        output: outBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), outputStride: outStride,
        unpremultiplying: unpremultiplying && image.hasAlpha)
    }
    return result
  }
}
