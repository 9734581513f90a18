/// The horizontal half of the separable resize: each output pixel is a weighted sum of
/// neighbouring pixels of the same intermediate row. Specialised per channel count so nothing is
/// generic at run time: three and four channels filter a whole pixel per vector operation, one
/// and two channels unroll their channels.
enum HorizontalPass {
  /// Samples of padding each intermediate row needs after its last pixel (a whole-pixel vector
  /// load of the last RGB pixel reads one sample past it).
  static let rowPadding = 4

  /// Filters `rowCount` intermediate rows into 8-bit output rows, clamping to 0…255.
  /// - Parameters:
  ///   - input: The first intermediate row (samples scaled by 2^6), padded by ``rowPadding``.
  ///   - inputStride: Samples between intermediate rows.
  ///   - rowCount: The number of rows.
  ///   - channels: Interleaved channels per pixel, 1…4.
  ///   - weights: The taps along x.
  ///   - output: The first output row.
  ///   - outputStride: Bytes between output rows.
  ///   - unpremultiplying: The input has premultiplied alpha (two or four channels) and the output
  ///     should have straight alpha. Colour is divided by alpha at full precision, before rounding,
  ///     so faint pixels keep their colour and alpha overshoot does not tint the colour.
  static func run(
    input: UnsafePointer<Int16>, inputStride: Int, rowCount: Int, channels: Int, weights: FilterWeights,
    output: UnsafeMutablePointer<UInt8>, outputStride: Int, unpremultiplying: Bool
  ) {
    weights.weights.withUnsafeBufferPointer { w in
      weights.starts.withUnsafeBufferPointer { starts in
        weights.counts.withUnsafeBufferPointer { counts in
          let taps = Taps(
            weights: w.baseAddress!, starts: starts.baseAddress!, counts: counts.baseAddress!,
            stride: weights.tapsPerOutput, outputCount: weights.outputCount)
          for y in 0..<rowCount {
            let source = input + y * inputStride
            let target = output + y * outputStride
            switch (channels, unpremultiplying) {
            case (1, _): filterRowByChannel(source, target, taps, channels: 1, unpremultiplying: false)
            case (2, false): filterRowByChannel(source, target, taps, channels: 2, unpremultiplying: false)
            case (2, true): filterRowByChannel(source, target, taps, channels: 2, unpremultiplying: true)
            case (3, _): filterRowByPixel(source, target, taps, channels: 3, unpremultiplying: false)
            case (_, false): filterRowByPixel(source, target, taps, channels: 4, unpremultiplying: false)
            case (_, true): filterRowByPixel(source, target, taps, channels: 4, unpremultiplying: true)
            }
          }
        }
      }
    }
  }

  /// The filter taps as raw pointers, valid during ``run``.
  struct Taps {
    let weights: UnsafePointer<Int16>
    let starts: UnsafePointer<Int32>
    let counts: UnsafePointer<Int32>
    let stride: Int
    let outputCount: Int
  }

  static let shift = Int32(FilterWeights.fractionBits + VerticalPass.intermediateFractionBits)

  /// One row, a whole pixel (up to four channels) per vector multiply-add.
  @inline(__always)
  static func filterRowByPixel(
    _ source: UnsafePointer<Int16>, _ target: UnsafeMutablePointer<UInt8>, _ taps: Taps, channels: Int,
    unpremultiplying: Bool
  ) {
    let raw = UnsafeRawPointer(source)
    let pixelBytes = channels * 2
    for x in 0..<taps.outputCount {
      let weights = taps.weights + x * taps.stride
      var offset = Int(taps.starts[x]) * pixelBytes
      var sum = SIMD4<Int32>(repeating: 1 << (shift - 1))
      for t in 0..<Int(taps.counts[x]) {
        let pixel = raw.loadUnaligned(fromByteOffset: offset, as: SIMD4<Int16>.self)
        sum &+=
          SIMD4<Int32>(truncatingIfNeeded: pixel) &* SIMD4<Int32>(repeating: Int32(weights[t]))
        offset += pixelBytes
      }
      var result = (sum &>> shift).clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255))
      if unpremultiplying { result = straightAlpha(result, sums: sum) }
      let out = target + x * channels
      out[0] = UInt8(truncatingIfNeeded: result[0])
      out[1] = UInt8(truncatingIfNeeded: result[1])
      out[2] = UInt8(truncatingIfNeeded: result[2])
      if channels > 3 { out[3] = UInt8(truncatingIfNeeded: result[3]) }
    }
  }

  /// One row, channel by channel (for one or two channels, where a pixel fills little of a vector).
  @inline(__always)
  static func filterRowByChannel(
    _ source: UnsafePointer<Int16>, _ target: UnsafeMutablePointer<UInt8>, _ taps: Taps, channels: Int,
    unpremultiplying: Bool
  ) {
    let rounding = Int32(1) << (shift - 1)
    for x in 0..<taps.outputCount {
      let weights = taps.weights + x * taps.stride
      var pixel = source + Int(taps.starts[x]) * channels
      var first = rounding
      var second = rounding
      for t in 0..<Int(taps.counts[x]) {
        let w = Int32(weights[t])
        first &+= Int32(pixel[0]) &* w
        if channels > 1 { second &+= Int32(pixel[1]) &* w }
        pixel += channels
      }
      let out = target + x * channels
      if unpremultiplying {
        let straight = straightAlpha(SIMD4(first &>> shift, 0, 0, second &>> shift), sums: SIMD4(first, 0, 0, second))
        out[0] = UInt8(truncatingIfNeeded: straight[0])
        out[1] = UInt8(truncatingIfNeeded: straight[3])
      } else {
        out[0] = clampToByte(first &>> shift)
        if channels > 1 { out[1] = clampToByte(second &>> shift) }
      }
    }
  }

  /// Straight colour from premultiplied sums: `colour * 255 / alpha` on the unrounded sums (so the
  /// fixed-point scale cancels), rounded and clamped; 0 where alpha rounds to 0. Alpha is lane 3.
  /// - Parameters:
  ///   - rounded: The rounded, clamped premultiplied result.
  ///   - sums: The sums it was rounded from.
  @inline(__always)
  static func straightAlpha(_ rounded: SIMD4<Int32>, sums: SIMD4<Int32>) -> SIMD4<Int32> {
    let alpha = rounded[3]
    guard alpha != 0 else { return .zero }
    let scale = 255 / Float(sums[3] &- (1 << (shift - 1)))
    let colour = (SIMD4<Float>(sums &- (1 << (shift - 1))) * scale).rounded(.toNearestOrAwayFromZero)
    var result = SIMD4<Int32>(colour.clamped(lowerBound: .zero, upperBound: SIMD4(repeating: 255)))
    result[3] = alpha
    return result
  }

  @inline(__always)
  static func clampToByte(_ value: Int32) -> UInt8 {
    UInt8(truncatingIfNeeded: min(255, max(0, value)))
  }
}
