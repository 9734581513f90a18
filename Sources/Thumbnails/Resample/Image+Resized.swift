public import ImageCodecs

extension Image {
  /// A resized copy: a separable filter (Lanczos3 by default) in 8-bit fixed point, with alpha
  /// premultiplied while filtering, results clamped and edges renormalised (no dark borders).
  ///
  /// For thumbnails of files, ``Thumbnailer`` is faster: it also shrinks on load.
  /// - Parameters:
  ///   - width: The new width, at least 1.
  ///   - height: The new height, at least 1.
  ///   - filter: The resampling filter.
  /// - Returns: The resized image, same pixel format and orientation.
  /// - Throws: ``/ImageCodecs/DecodeError`` of kind ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the result or a
  ///   working buffer cannot be allocated.
  /// - Precondition: The pixel format is 8-bit (gray8, grayAlpha8, rgb8 or rgba8).
  public func resized(width: Int, height: Int, filter: ResampleFilter = .lanczos3) throws(DecodeError) -> Image {
    precondition(
      pixelFormat.bytesPerSample == 1, "resizing needs an 8-bit pixel format, not \(pixelFormat)")
    let width = Swift.max(1, width)
    let height = Swift.max(1, height)
    let horizontal = FilterWeights(
      filter: filter, inputCount: self.width, inputExtent: Double(self.width), outputCount: width,
      window: 0..<width)
    let vertical = FilterWeights(
      filter: filter, inputCount: self.height, inputExtent: Double(self.height),
      outputCount: height,
      window: 0..<height)
    let working = try PremultipliedAlpha.premultiplied(self)
    return try SeparableResampler.resample(working, horizontal: horizontal, vertical: vertical, unpremultiplying: true)
  }
}
