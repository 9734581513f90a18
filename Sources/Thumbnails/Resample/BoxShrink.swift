import ImageCodecs

/// Integer box shrink: each output pixel is the rounded mean of a `factorX` x `factorY` block of
/// input pixels. The last column and row of blocks may be partial; they average what they cover.
/// Cheap (a few additions per input sample), so it takes the bulk of a large reduction before the
/// accurate filter runs on a small image.
enum BoxShrink {
  /// Shrinks an 8-bit image.
  /// - Parameters:
  ///   - image: An 8-bit image (gray8, grayAlpha8, rgb8 or rgba8).
  ///   - factorX: Input columns per output column, at least 1.
  ///   - factorY: Input rows per output row, at least 1.
  /// - Returns: An image of `ceil(width / factorX)` x `ceil(height / factorY)` pixels.
  static func shrink(_ image: Image, factorX: Int, factorY: Int) -> Image {
    let channels = image.pixelFormat.channelCount
    let (width, height) = (image.width, image.height)
    let outWidth = (width + factorX - 1) / factorX
    let outHeight = (height + factorY - 1) / factorY
    var result = Image(width: outWidth, height: outHeight, pixelFormat: image.pixelFormat)
    let rowLength = width * channels
    let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: rowLength)
    defer { sums.deallocate() }
    let inStride = image.bytesPerRow
    let outStride = result.bytesPerRow
    image.withUnsafeBytes { inBytes in
      result.withUnsafeMutableBytes { outBytes in
        let input = inBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let output = outBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        for oy in 0..<outHeight {
          let firstRow = oy * factorY
          let rows = min(factorY, height - firstRow)
          var row = input + firstRow * inStride
          for i in 0..<rowLength { sums[i] = UInt32(row[i]) }
          for _ in 1..<max(1, rows) {
            row += inStride
            for i in 0..<rowLength { sums[i] &+= UInt32(row[i]) }
          }
          let out = output + oy * outStride
          let fullCount = UInt32(factorX * rows)
          let fullReciprocal = reciprocal(fullCount)
          for ox in 0..<outWidth {
            let firstColumn = ox * factorX
            let columns = min(factorX, width - firstColumn)
            let scale = columns == factorX ? fullReciprocal : reciprocal(UInt32(columns * rows))
            for c in 0..<channels {
              var total: UInt32 = 0
              var index = firstColumn * channels + c
              for _ in 0..<columns {
                total &+= sums[index]
                index += channels
              }
              out[ox * channels + c] = UInt8(
                truncatingIfNeeded: (UInt64(total) &* scale &+ (1 << 31)) >> 32)
            }
          }
        }
      }
    }
    return result
  }

  /// `2^32 / count`, rounded: multiplying a sum by it and shifting right by 32 divides with rounding.
  @inline(__always)
  static func reciprocal(_ count: UInt32) -> UInt64 {
    ((1 << 32) + UInt64(count / 2)) / UInt64(count)
  }
}
