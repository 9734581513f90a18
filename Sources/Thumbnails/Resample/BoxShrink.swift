import ImageCodecs

/// Integer box shrink: each output pixel is the rounded mean of a `factorX` x `factorY` block of
/// input pixels. The last column and row of blocks may be partial; they average what they cover.
/// Cheap (a few additions per input sample), so it takes the bulk of a large reduction before the
/// accurate filter runs on a small image.
///
/// With `premultiplying`, alpha images are premultiplied on the way in: the block sums colour
/// times alpha at full precision and the output is premultiplied 8-bit, in one pass over the
/// (large) source instead of two.
enum BoxShrink {
  /// Shrinks an 8-bit image.
  /// - Parameters:
  ///   - image: An 8-bit image (gray8, grayAlpha8, rgb8 or rgba8).
  ///   - factorX: Input columns per output column, at least 1.
  ///   - factorY: Input rows per output row, at least 1.
  ///   - premultiplying: For images with alpha: the input has straight alpha and the output
  ///     should be premultiplied.
  /// - Returns: An image of `ceil(width / factorX)` x `ceil(height / factorY)` pixels.
  static func shrink(_ image: Image, factorX: Int, factorY: Int, premultiplying: Bool = false) -> Image {
    let channels = image.pixelFormat.channelCount
    let premultiplying = premultiplying && image.hasAlpha
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
          sums.initialize(repeating: 0, count: rowLength)
          for y in firstRow..<(firstRow + rows) {
            let row = input + y * inStride
            switch (premultiplying, channels) {
            case (true, 2): addPremultiplied(row, to: sums, pixels: width, channels: 2)
            case (true, _): addPremultiplied(row, to: sums, pixels: width, channels: 4)
            default: add(row, to: sums, count: rowLength)
            }
          }
          let out = output + oy * outStride
          let scale = premultiplying ? 255 : 1  // premultiplied sums carry a factor of 255
          switch channels {
          case 1: average(sums, out, width: width, factor: factorX, rows: rows * scale, channels: 1)
          case 2: average(sums, out, width: width, factor: factorX, rows: rows * scale, channels: 2)
          case 3: average(sums, out, width: width, factor: factorX, rows: rows * scale, channels: 3)
          default: average(sums, out, width: width, factor: factorX, rows: rows * scale, channels: 4)
          }
        }
      }
    }
    return result
  }

  /// Adds a row of samples to the column sums, sixteen at a time.
  @inline(__always)
  static func add(_ row: UnsafePointer<UInt8>, to sums: UnsafeMutablePointer<UInt32>, count: Int) {
    let source = UnsafeRawPointer(row)
    let target = UnsafeMutableRawPointer(sums)
    var i = 0
    while i + 16 <= count {
      let samples = source.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
      let low = SIMD8<UInt32>(truncatingIfNeeded: samples.lowHalf)
      let high = SIMD8<UInt32>(truncatingIfNeeded: samples.highHalf)
      let first = target.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<UInt32>.self)
      let second = target.loadUnaligned(fromByteOffset: i * 4 + 32, as: SIMD8<UInt32>.self)
      target.storeBytes(of: first &+ low, toByteOffset: i * 4, as: SIMD8<UInt32>.self)
      target.storeBytes(of: second &+ high, toByteOffset: i * 4 + 32, as: SIMD8<UInt32>.self)
      i += 16
    }
    while i < count {
      sums[i] &+= UInt32(row[i])
      i += 1
    }
  }

  /// Adds a row of straight-alpha pixels as premultiplied values: colour times alpha, and alpha
  /// times 255 (so every channel carries the same factor of 255).
  @inline(__always)
  static func addPremultiplied(
    _ row: UnsafePointer<UInt8>, to sums: UnsafeMutablePointer<UInt32>, pixels: Int, channels: Int
  ) {
    var source = row
    var target = sums
    for _ in 0..<pixels {
      let alpha = UInt32(source[channels - 1])
      for c in 0..<(channels - 1) { target[c] &+= UInt32(source[c]) &* alpha }
      target[channels - 1] &+= alpha &* 255
      source += channels
      target += channels
    }
  }

  /// Sums each block of `factor` columns and writes the rounded means of one output row.
  @inline(__always)
  static func average(
    _ sums: UnsafePointer<UInt32>, _ out: UnsafeMutablePointer<UInt8>, width: Int, factor: Int, rows: Int,
    channels: Int
  ) {
    let outWidth = (width + factor - 1) / factor
    let fullScale = reciprocal(UInt32(factor * rows))
    for ox in 0..<outWidth {
      let first = ox * factor
      let columns = min(factor, width - first)
      let scale = columns == factor ? fullScale : reciprocal(UInt32(columns * rows))
      var totals = SIMD4<UInt32>.zero
      var column = sums + first * channels
      for _ in 0..<columns {
        for c in 0..<channels { totals[c] &+= column[c] }
        column += channels
      }
      for c in 0..<channels {
        out[ox * channels + c] = UInt8(truncatingIfNeeded: (UInt64(totals[c]) &* scale &+ (1 << 31)) >> 32)
      }
    }
  }

  /// `2^32 / count`, rounded: multiplying a sum by it and shifting right by 32 divides with rounding.
  @inline(__always)
  static func reciprocal(_ count: UInt32) -> UInt64 { ((1 << 32) + UInt64(count / 2)) / UInt64(count) }
}
