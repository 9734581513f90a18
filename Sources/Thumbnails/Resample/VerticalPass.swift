/// The vertical half of the separable resize: each output row is a weighted sum of whole input
/// rows. Sixteen samples of a row are filtered at once through every tap with the sums held in
/// vector registers, so the input is read once per tap and nothing else touches memory.
enum VerticalPass {
  /// Fraction bits kept in the intermediate rows: a sample `v` is stored as `v * 2^6` (rounded),
  /// which leaves room in `Int16` for the filter's overshoot on both sides of 0…255.
  static let intermediateFractionBits = 6

  /// Filters `weights.outputCount` rows of `rowLength` samples.
  /// - Parameters:
  ///   - input: The first input row (8-bit samples).
  ///   - inputStride: Bytes between input rows.
  ///   - rowLength: Samples per row (width times channels) to filter.
  ///   - weights: The taps along y.
  ///   - output: The first intermediate row.
  ///   - outputStride: Samples between intermediate rows (at least `rowLength`).
  static func run(
    input: UnsafePointer<UInt8>, inputStride: Int, rowLength: Int, weights: FilterWeights,
    output: UnsafeMutablePointer<Int16>, outputStride: Int
  ) {
    let shift = Int32(FilterWeights.fractionBits - intermediateFractionBits)
    let rounding = Int32(1) << (shift - 1)
    let raw = UnsafeRawPointer(input)
    weights.weights.withUnsafeBufferPointer { allWeights in
      for row in 0..<weights.outputCount {
        let first = Int(weights.starts[row]) * inputStride
        let count = Int(weights.counts[row])
        let rowWeights = allWeights.baseAddress! + row * weights.tapsPerOutput
        let out = UnsafeMutableRawPointer(output + row * outputStride)
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
          out.storeBytes(of: result, toByteOffset: i * 2, as: SIMD16<Int16>.self)
          i += 16
        }
        while i < rowLength {
          var sum = rounding
          var offset = first + i
          for t in 0..<count {
            sum &+= Int32(input[offset]) &* Int32(rowWeights[t])
            offset += inputStride
          }
          out.storeBytes(
            of: Int16(truncatingIfNeeded: sum &>> shift), toByteOffset: i * 2, as: Int16.self)
          i += 1
        }
      }
    }
  }
}
