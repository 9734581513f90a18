import ImageCodecs

/// The vertical half of the separable resize: each output row is a weighted sum of whole input
/// rows. Sixteen samples of a row are filtered at once through every tap with the sums held in
/// vector registers, so the input is read once per tap.
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
    let raw = UnsafeRawPointer(input)
    let rowLength = width * channels
    // One filtered row, stored contiguously, then spread into the columns pixel by pixel.
    let row = try ScratchMemory.allocate(Int16.self, count: rowLength + 16)
    defer { ScratchMemory.release(row) }
    let rowBytes = UnsafeMutableRawPointer(row)
    weights.weights.withUnsafeBufferPointer { allWeights in
      for y in 0..<weights.outputCount {
        let first = Int(weights.starts[y]) * inputStride
        let count = Int(weights.counts[y])
        let rowWeights = allWeights.baseAddress! + y * weights.tapsPerOutput
        var i = 0
        while i + 16 <= rowLength {
          var low = SIMD8<Int32>(repeating: rounding)
          var high = SIMD8<Int32>(repeating: rounding)
          var offset = first + i
          for t in 0..<count {
            let w = SIMD8<Int32>(repeating: Int32(rowWeights[t]))
            let samples = raw.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self)
            low &+= SIMD8<Int32>(truncatingIfNeeded: samples.lowHalf) &* w
            high &+= SIMD8<Int32>(truncatingIfNeeded: samples.highHalf) &* w
            offset += inputStride
          }
          let result = SIMD16<Int16>(
            lowHalf: SIMD8<Int16>(truncatingIfNeeded: low &>> shift),
            highHalf: SIMD8<Int16>(truncatingIfNeeded: high &>> shift))
          rowBytes.storeBytes(of: result, toByteOffset: i * 2, as: SIMD16<Int16>.self)
          i += 16
        }
        while i < rowLength {
          var sum = rounding
          var offset = first + i
          for t in 0..<count {
            sum &+= Int32(input[offset]) &* Int32(rowWeights[t])
            offset += inputStride
          }
          row[i] = Int16(truncatingIfNeeded: sum &>> shift)
          i += 1
        }
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
