extension Image {
  /// The image turned upright according to ``orientation``: an exact flip and/or rotation, no
  /// resampling. The result's orientation is `.up`; for orientations 5–8 width and height swap.
  /// - Returns: `self` unchanged when the orientation is already `.up`.
  /// - Throws: ``DecodeError/Kind/outOfMemory`` when there is no memory for the upright copy.
  public func oriented() throws(DecodeError) -> Image {
    guard orientation != .up else { return self }
    let swapped = orientation.swapsDimensions
    let outWidth = swapped ? height : width
    let outHeight = swapped ? width : height
    let outBytes = outWidth * outHeight * pixelFormat.bytesPerPixel
    guard let storage = PixelStorage(reserving: outBytes) else {
      throw DecodeError.cannotAllocate(outBytes, for: "the upright \(outWidth)x\(outHeight) pixels")
    }
    let result = Image(
      width: outWidth, height: outHeight, pixelFormat: pixelFormat, bytesPerRow: outWidth * pixelFormat.bytesPerPixel,
      orientation: .up, storage: storage)
    let pixelSize = pixelFormat.bytesPerPixel
    let stride = bytesPerRow
    let (w, h) = (width, height)
    // For each output pixel (x, y), the source pixel is origin + x * stepX + y * stepY (in bytes).
    let (origin, stepX, stepY): (Int, Int, Int)
    switch orientation {
    case .up: (origin, stepX, stepY) = (0, pixelSize, stride)
    case .upMirrored: (origin, stepX, stepY) = ((w - 1) * pixelSize, -pixelSize, stride)
    case .down: (origin, stepX, stepY) = ((h - 1) * stride + (w - 1) * pixelSize, -pixelSize, -stride)
    case .downMirrored: (origin, stepX, stepY) = ((h - 1) * stride, pixelSize, -stride)
    case .leftMirrored: (origin, stepX, stepY) = (0, stride, pixelSize)
    case .right: (origin, stepX, stepY) = ((h - 1) * stride, -stride, pixelSize)
    case .rightMirrored: (origin, stepX, stepY) = ((h - 1) * stride + (w - 1) * pixelSize, -stride, -pixelSize)
    case .left: (origin, stepX, stepY) = ((w - 1) * pixelSize, stride, -pixelSize)
    }
    let source = self.storage.pointer
    let outStride = result.bytesPerRow
    let target = storage.pointer  // the new, unshared storage
    for y in 0..<outHeight {
      var from = origin + y * stepY
      var to = y * outStride
      for _ in 0..<outWidth {
        target.advanced(by: to).copyMemory(from: source.advanced(by: from), byteCount: pixelSize)
        from += stepX
        to += pixelSize
      }
    }
    return result
  }
}
