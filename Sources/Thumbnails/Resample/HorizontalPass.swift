internal import CResampleEngine
import ImageCodecs

/// The horizontal half of the separable resize: each output column is a weighted sum of
/// neighbouring intermediate columns. Because the intermediate is stored column by column, this
/// is the same contiguous loop as the vertical pass (`imc_resample_lines_i16`), with no per-pixel
/// gathering of channels.
enum HorizontalPass {
  /// The shift that takes a sum back to 8 bits: weight fraction plus intermediate fraction.
  static let shift = Int32(FilterWeights.fractionBits + VerticalPass.intermediateFractionBits)

  /// Filters the intermediate's columns into an 8-bit image, clamping to 0…255.
  /// - Parameters:
  ///   - input: The intermediate from ``VerticalPass``.
  ///   - channels: Interleaved channels per pixel, 1…4.
  ///   - weights: The taps along x.
  ///   - output: The first output row; `weights.outputCount` pixels wide, `input.columnLength /
  ///     channels` rows high.
  ///   - outputStride: Bytes between output rows.
  ///   - unpremultiplying: The input has premultiplied alpha (two or four channels) and the output
  ///     should have straight alpha. Colour is divided by alpha at full precision, before rounding,
  ///     so faint pixels keep their colour and alpha overshoot does not tint the colour.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when its column buffer cannot be allocated.
  static func run(
    input: ColumnMajorRows, channels: Int, weights: FilterWeights, output: UnsafeMutablePointer<UInt8>,
    outputStride: Int, unpremultiplying: Bool
  ) throws(DecodeError) {
    let rounding = Int32(1) << (shift - 1)
    let sums = try ScratchMemory.allocate(Int32.self, count: input.columnStride)
    defer { ScratchMemory.release(sums) }
    weights.weights.withUnsafeBufferPointer { allWeights in
      for column in 0..<weights.outputCount {
        // Whole padded columns (a multiple of 16 samples): the kernel's vector loop alone.
        imc_resample_lines_i16(
          input.samples + Int(weights.starts[column]) * input.columnStride, input.columnStride,
          allWeights.baseAddress! + column * weights.tapsPerOutput, weights.counts[column], rounding,
          input.columnStride, sums)
        let target = output + column * channels
        switch (channels, unpremultiplying) {
        case (2, true): storeUnpremultiplied(sums, rows: input.columnLength / 2, target, outputStride, channels: 2)
        case (4, true): storeUnpremultiplied(sums, rows: input.columnLength / 4, target, outputStride, channels: 4)
        case (1, _): store(sums, rows: input.columnLength, target, outputStride, channels: 1)
        case (2, _): store(sums, rows: input.columnLength / 2, target, outputStride, channels: 2)
        case (3, _): store(sums, rows: input.columnLength / 3, target, outputStride, channels: 3)
        default: store(sums, rows: input.columnLength / 4, target, outputStride, channels: 4)
        }
      }
    }
  }

  /// Writes one output column: each sum shifted back to 8 bits and clamped; `channels` is constant
  /// at each call site.
  @inline(__always)
  static func store(
    _ sums: UnsafePointer<Int32>, rows: Int, _ target: UnsafeMutablePointer<UInt8>, _ stride: Int, channels: Int
  ) {
    var sum = sums
    var pixel = target
    for _ in 0..<rows {
      for c in 0..<channels { pixel[c] = UInt8(truncatingIfNeeded: min(255, max(0, sum[c] &>> shift))) }
      sum += channels
      pixel += stride
    }
  }

  /// Writes one output column with straight alpha: `colour * 255 / alpha` on the unrounded sums
  /// (the fixed-point scale cancels), rounded and clamped; 0 where alpha rounds to 0.
  @inline(__always)
  static func storeUnpremultiplied(
    _ sums: UnsafePointer<Int32>, rows: Int, _ target: UnsafeMutablePointer<UInt8>, _ stride: Int, channels: Int
  ) {
    let rounding = Int32(1) << (shift - 1)
    for row in 0..<rows {
      let pixel = sums + row * channels
      let out = target + row * stride
      let alpha = min(255, max(0, pixel[channels - 1] &>> shift))
      out[channels - 1] = UInt8(truncatingIfNeeded: alpha)
      let scale = alpha == 0 ? 0 : 255 / Float(pixel[channels - 1] &- rounding)
      for c in 0..<(channels - 1) {
        let colour = (Float(pixel[c] &- rounding) * scale).rounded(.toNearestOrAwayFromZero)
        out[c] = UInt8(min(255, max(0, colour)))
      }
    }
  }
}
