import ImageCodecs

/// Conversions between straight and premultiplied alpha, done in place on 8-bit images.
///
/// Filtering straight alpha lets the colour of invisible pixels bleed into visible ones (a dark
/// halo around a transparent border is the classic symptom); filtering premultiplied colour
/// weights every pixel by its coverage, which is what the eye sees.
enum PremultipliedAlpha {
  /// Multiplies colour by alpha: `c * a / 255`, rounded. Images without alpha are left alone.
  /// - Parameter image: gray+alpha or RGBA, 8-bit.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the pixels are shared and cannot be copied.
  static func premultiply(_ image: inout Image) throws(DecodeError) {
    switch image.pixelFormat {
    case .grayAlpha8: try forEachRow(of: &image) { premultiplyRow($0, count: $1, channels: 2) }
    case .rgba8: try forEachRow(of: &image) { premultiplyRow($0, count: $1, channels: 4) }
    default: return
    }
  }

  /// A premultiplied copy in a buffer of its own (the source is not written): `c * a / 255`,
  /// rounded. Images without alpha are returned as they are.
  /// - Parameter image: Any 8-bit image.
  /// - Returns: The premultiplied image.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the copy cannot be allocated.
  static func premultiplied(_ image: Image) throws(DecodeError) -> Image {
    guard image.hasAlpha else { return image }
    let channels = image.pixelFormat.channelCount
    var result = try Image(
      width: image.width, height: image.height, pixelFormat: image.pixelFormat,
      orientation: image.orientation)
    let (inStride, outStride, rowLength) = (image.bytesPerRow, result.bytesPerRow, image.width * channels)
    try image.withUnsafeBytes { (inBytes) throws(DecodeError) in
      try result.withUnsafeMutableBytes { outBytes in
        for y in 0..<image.height {
          (outBytes.baseAddress! + y * outStride).copyMemory(
            from: inBytes.baseAddress! + y * inStride, byteCount: rowLength)
        }
      }
    }
    try premultiply(&result)
    return result
  }

  /// Divides colour by alpha again after filtering: `c * 255 / a`, rounded and clamped (filter
  /// overshoot can push colour above alpha). Fully transparent pixels become 0.
  /// - Parameter image: gray+alpha or RGBA, 8-bit, premultiplied.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the pixels are shared and cannot be copied.
  static func unpremultiply(_ image: inout Image) throws(DecodeError) {
    guard image.hasAlpha else { return }
    let channels = image.pixelFormat.channelCount
    try forEachRow(of: &image) { row, width in
      var pixel = row
      for _ in 0..<width {
        let alpha = UInt32(pixel[channels - 1])
        if alpha != 255 {
          for c in 0..<(channels - 1) {
            pixel[c] =
              alpha == 0 ? 0 : UInt8(min(255, (UInt32(pixel[c]) &* 255 &+ alpha / 2) / alpha))
          }
        }
        pixel += channels
      }
    }
  }

  /// Composites premultiplied pixels over a colour and drops alpha: `c + (255 - a) * b / 255`
  /// (over white, ``flattenedOverWhite(_:)``'s very pixels).
  /// - Parameters:
  ///   - image: gray+alpha or RGBA, 8-bit, premultiplied.
  ///   - background: The colour.
  /// - Returns: rgb8 (gray8 for gray over white); `image` itself when it has no alpha.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the result cannot be allocated.
  static func flattened(_ image: Image, over background: ThumbnailBackground) throws(DecodeError) -> Image {
    guard background != .white else { return try flattenedOverWhite(image) }
    guard image.hasAlpha else { return image }
    let channels = image.pixelFormat.channelCount
    let colour = [Int(background.red), Int(background.green), Int(background.blue)]
    // A gray image over a colour is a colour image.
    var result = try Image(width: image.width, height: image.height, pixelFormat: .rgb8)
    let (inStride, outStride) = (image.bytesPerRow, result.bytesPerRow)
    try image.withUnsafeBytes { (inBytes) throws(DecodeError) in
      try result.withUnsafeMutableBytes { outBytes in
        for y in 0..<image.height {
          var source = inBytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * inStride
          var target = outBytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * outStride
          for _ in 0..<image.width {
            let clear = 255 - Int(source[channels - 1])
            for c in 0..<3 {
              let level = Int(source[channels == 2 ? 0 : c])
              target[c] = UInt8(min(255, level + (clear * colour[c] + 127) / 255))
            }
            source += channels
            target += 3
          }
        }
      }
    }
    return result
  }

  /// Composites premultiplied pixels over white and drops alpha: `c + 255 - a`.
  /// - Parameter image: gray+alpha or RGBA, 8-bit, premultiplied.
  /// - Returns: gray8 or rgb8; `image` itself when it has no alpha.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the result cannot be allocated.
  static func flattenedOverWhite(_ image: Image) throws(DecodeError) -> Image {
    guard image.hasAlpha else { return image }
    let channels = image.pixelFormat.channelCount
    let opaqueFormat: PixelFormat = channels == 2 ? .gray8 : .rgb8
    var result = try Image(width: image.width, height: image.height, pixelFormat: opaqueFormat)
    let (inStride, outStride) = (image.bytesPerRow, result.bytesPerRow)
    try image.withUnsafeBytes { (inBytes) throws(DecodeError) in
      try result.withUnsafeMutableBytes { outBytes in
        for y in 0..<image.height {
          var source = inBytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * inStride
          var target = outBytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * outStride
          for _ in 0..<image.width {
            let clear = 255 - Int(source[channels - 1])
            for c in 0..<(channels - 1) { target[c] = UInt8(min(255, Int(source[c]) + clear)) }
            source += channels
            target += channels - 1
          }
        }
      }
    }
    return result
  }

  /// Premultiplies one row of `count` pixels in place (nothing to do without alpha).
  /// - Parameters:
  ///   - row: The first sample.
  ///   - count: Pixels in the row.
  ///   - format: The 8-bit pixel format.
  static func premultiply(row: UnsafeMutablePointer<UInt8>, count: Int, format: PixelFormat) {
    switch format {
    case .grayAlpha8: premultiplyRow(row, count: count, channels: 2)
    case .rgba8: premultiplyRow(row, count: count, channels: 4)
    default: return
    }
  }

  /// One row; `channels` is a constant at each call site so the loop body unrolls.
  @inline(__always)
  private static func premultiplyRow(_ row: UnsafeMutablePointer<UInt8>, count: Int, channels: Int) {
    var pixel = row
    for _ in 0..<count {
      let alpha = UInt32(pixel[channels - 1])
      pixel[0] = divideBy255(UInt32(pixel[0]) &* alpha)
      if channels == 4 {
        pixel[1] = divideBy255(UInt32(pixel[1]) &* alpha)
        pixel[2] = divideBy255(UInt32(pixel[2]) &* alpha)
      }
      pixel += channels
    }
  }

  /// `x / 255` rounded, exact for `x` in 0…65025.
  @inline(__always)
  static func divideBy255(_ x: UInt32) -> UInt8 {
    let y = x &+ 128
    return UInt8(truncatingIfNeeded: (y &+ (y >> 8)) >> 8)
  }

  @inline(__always)
  private static func forEachRow(
    of image: inout Image, _ body: (UnsafeMutablePointer<UInt8>, Int) -> Void
  ) throws(DecodeError) {
    let (width, height, stride) = (image.width, image.height, image.bytesPerRow)
    try image.withUnsafeMutableBytes { bytes in
      let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
      for y in 0..<height { body(base + y * stride, width) }
    }
  }
}
