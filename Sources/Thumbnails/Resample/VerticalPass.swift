internal import CResampleEngine
import ImageCodecs

/// The vertical half of the separable resize: each output row is a weighted sum of whole input
/// rows (`imc_resample_lines_u8`: sixteen samples at once, two taps per multiply-add).
///
/// The result is written column by column (see ``ColumnMajorRows``), so that the horizontal pass
/// can run the same kind of contiguous vector loop down the columns.
enum VerticalPass {
  /// Copies each pixel of a filtered row to its column; `channels` is constant at each call site.
  @inline(__always)
  static func spread(_ row: UnsafePointer<Int16>, into output: ColumnMajorRows, y: Int, width: Int, channels: Int) {
    var target = output.samples + y * channels
    var source = row
    for _ in 0..<width {
      for c in 0..<channels { target[c] = source[c] }
      target += output.columnStride
      source += channels
    }
  }

  /// Fraction bits kept in the intermediate samples: a sample `v` is stored as `v * 2^6`
  /// (rounded), which leaves room in `Int16` for the filter's overshoot on both sides of 0…255.
  static let intermediateFractionBits = 6

  /// Filters `weights.outputCount` rows of `width * channels` samples.
  /// - Parameters:
  ///   - input: The first input row (8-bit samples).
  ///   - inputStride: Bytes between input rows.
  ///   - width: Pixels per row.
  ///   - channels: Interleaved channels per pixel.
  ///   - weights: The taps along y.
  ///   - output: The intermediate, `width` columns of `weights.outputCount` pixels.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when its row buffer cannot be allocated.
  static func run(
    input: UnsafePointer<UInt8>, inputStride: Int, width: Int, channels: Int, weights: FilterWeights,
    output: ColumnMajorRows
  ) throws(DecodeError) {
    let shift = Int32(FilterWeights.fractionBits - intermediateFractionBits)
    let rounding = Int32(1) << (shift - 1)
    let rowLength = width * channels
    // One filtered row, stored contiguously, then spread into the columns pixel by pixel.
    let row = try ScratchMemory.allocate(Int16.self, count: rowLength)
    defer { ScratchMemory.release(row) }
    weights.weights.withUnsafeBufferPointer { allWeights in
      for y in 0..<weights.outputCount {
        imc_resample_lines_u8(
          input + Int(weights.starts[y]) * inputStride, inputStride, allWeights.baseAddress! + y * weights.tapsPerOutput,
          weights.counts[y], rounding, shift, rowLength, row)
        switch channels {
        case 1: spread(row, into: output, y: y, width: width, channels: 1)
        case 2: spread(row, into: output, y: y, width: width, channels: 2)
        case 3: spread(row, into: output, y: y, width: width, channels: 3)
        default: spread(row, into: output, y: y, width: width, channels: 4)
        }
      }
    }
  }
}
