/// The fixed-point filter taps for every output pixel along one axis, computed once per resize.
///
/// Output pixel `i` (of the window) is `sum(weights[i * tapsPerOutput + t] * input[starts[i] + t])`
/// over `t < counts[i]`, divided by `2^fractionBits`. The weights of each output pixel sum to
/// exactly `2^fractionBits`, so flat areas stay exactly flat. Taps never reach outside the input:
/// at the edges the kernel is cut and renormalised (no wrap-around, no dark border).
struct FilterWeights {
  /// Fraction bits of a weight: 1.0 is `1 << 14`.
  static let fractionBits = 14

  /// The number of output pixels (the window's length).
  let outputCount: Int
  /// The stride between the weights of consecutive output pixels: the largest tap count.
  let tapsPerOutput: Int
  /// The first input pixel of each output pixel.
  let starts: [Int32]
  /// The number of taps of each output pixel (at most `tapsPerOutput`; the rest are zero).
  let counts: [Int32]
  /// The weights, `tapsPerOutput` per output pixel.
  let weights: [Int16]

  /// Computes the taps.
  /// - Parameters:
  ///   - filter: The kernel.
  ///   - inputCount: Input pixels available, at least 1.
  ///   - inputExtent: The length the input covers, in input pixels (equal to `inputCount` unless
  ///     the last input pixel stands for a partial box).
  ///   - outputCount: The length of the whole output grid, at least 1.
  ///   - window: The output pixels wanted (a crop of the grid).
  init(filter: ResampleFilter, inputCount: Int, inputExtent: Double, outputCount: Int, window: Range<Int>) {
    let scale = inputExtent / Double(outputCount)
    let filterScale = max(scale, 1)
    let support = filter.support * filterScale
    let one = 1 << Self.fractionBits
    // Every output pixel has at most this many taps; they are packed tighter at the end.
    let maximumTaps = min(inputCount, Int((2 * support).rounded(.up)) + 2)
    var starts = [Int32](repeating: 0, count: window.count)
    var counts = [Int32](repeating: 0, count: window.count)
    var packed = [Int16](repeating: 0, count: window.count * maximumTaps)
    var exact: [Double] = []
    exact.reserveCapacity(maximumTaps + 1)
    var quantised = [Int](repeating: 0, count: maximumTaps + 2)
    var widest = 1
    for (slot, output) in window.enumerated() {
      let centre = (Double(output) + 0.5) * scale
      var first = max(0, Int((centre - support).rounded(.down)))
      let last = min(inputCount, Int((centre + support).rounded(.up)) + 1)
      filter.weights(
        start: (Double(first) + 0.5 - centre) / filterScale, step: 1 / filterScale, count: max(0, last - first),
        into: &exact)
      var total = exact.reduce(0, +)
      if total <= 0 {
        // The kernel missed every pixel (only for degenerate sizes): take the nearest.
        first = min(inputCount - 1, max(0, Int(centre)))
        exact = [1]
        total = 1
      }
      // Quantise; drop taps that round to zero at either end; put the rounding remainder on the
      // largest tap so that the sum is exactly one.
      if quantised.count < exact.count { quantised = [Int](repeating: 0, count: exact.count) }
      var low = 0
      var high = exact.count
      for t in 0..<exact.count { quantised[t] = Int((exact[t] / total * Double(one)).rounded()) }
      while high - low > 1 && quantised[high - 1] == 0 { high -= 1 }
      while high - low > 1 && quantised[low] == 0 { low += 1 }
      var sum = 0
      var largest = low
      for t in low..<high {
        sum += quantised[t]
        if abs(quantised[t]) > abs(quantised[largest]) { largest = t }
      }
      quantised[largest] += one - sum
      let count = min(high - low, maximumTaps)
      for t in 0..<count { packed[slot * maximumTaps + t] = Int16(clamping: quantised[low + t]) }
      starts[slot] = Int32(first + low)
      counts[slot] = Int32(count)
      widest = max(widest, count)
    }
    // Repack with the stride of the widest output pixel.
    var weights = [Int16](repeating: 0, count: window.count * widest)
    for slot in 0..<window.count {
      for t in 0..<Int(counts[slot]) { weights[slot * widest + t] = packed[slot * maximumTaps + t] }
    }
    self.outputCount = window.count
    self.tapsPerOutput = widest
    self.starts = starts
    self.counts = counts
    self.weights = weights
  }

  /// When every output pixel copies one input pixel (weight one) and consecutive outputs read
  /// consecutive inputs, the first input pixel read: the pass is a plain copy (or a crop).
  var copyOffset: Int? {
    guard tapsPerOutput == 1 else { return nil }
    for i in 0..<outputCount
    where weights[i] != 1 << Self.fractionBits || starts[i] != starts[0] + Int32(i) {
      return nil
    }
    return Int(starts[0])
  }
}
