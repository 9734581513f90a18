import ImageCodecs

extension Image {
  /// A copy of a rectangle of this image, same pixel format, orientation and colour space.
  /// - Parameters:
  ///   - x: The rectangle's left column, `0...width - cropWidth`.
  ///   - y: The rectangle's top row, `0...height - cropHeight`.
  ///   - cropWidth: At least 1.
  ///   - cropHeight: At least 1.
  /// - Returns: The rectangle's pixels; `self` when the rectangle is the whole image.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the copy cannot be allocated.
  func cropped(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) throws(DecodeError) -> Image {
    precondition(x >= 0 && y >= 0 && x + cropWidth <= width && y + cropHeight <= height, "crop outside the image")
    if cropWidth == width && cropHeight == height { return self }
    var result = try Image(width: cropWidth, height: cropHeight, pixelFormat: pixelFormat, orientation: orientation)
    result.colorSpace = colorSpace
    let pixelBytes = pixelFormat.bytesPerPixel
    let (inStride, outStride) = (bytesPerRow, result.bytesPerRow)
    try withUnsafeBytes { (input) throws(DecodeError) in
      try result.withUnsafeMutableBytes { output in
        for row in 0..<cropHeight {
          let from = input.baseAddress! + (y + row) * inStride + x * pixelBytes
          (output.baseAddress! + row * outStride).copyMemory(from: from, byteCount: cropWidth * pixelBytes)
        }
      }
    }
    return result
  }
}
