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
  init(
    filter: ResampleFilter, inputCount: Int, inputExtent: Double, outputCount: Int,
    window: Range<Int>
  ) {
    let scale = inputExtent / Double(outputCount)
    let filterScale = max(scale, 1)
    let support = filter.support * filterScale
    let one = 1 << Self.fractionBits
    var starts = [Int32](repeating: 0, count: window.count)
    var counts = [Int32](repeating: 0, count: window.count)
    var rows: [[Int16]] = []
    rows.reserveCapacity(window.count)
    var exact: [Double] = []
    for (slot, output) in window.enumerated() {
      let centre = (Double(output) + 0.5) * scale
      var first = max(0, Int((centre - support).rounded(.down)))
      var last = min(inputCount, Int((centre + support).rounded(.up)) + 1)
      exact.removeAll(keepingCapacity: true)
      var total = 0.0
      for index in first..<max(first, last) {
        let w = filter.weight((Double(index) + 0.5 - centre) / filterScale)
        exact.append(w)
        total += w
      }
      if total <= 0 {
        // The kernel missed every pixel (only for degenerate sizes): take the nearest.
        first = min(inputCount - 1, max(0, Int(centre)))
        last = first + 1
        exact = [1]
        total = 1
      }
      var quantised = exact.map { Int(($0 / total * Double(one)).rounded()) }
      // Drop taps that quantise to zero at either end, then make the sum exactly one by putting
      // the rounding remainder on the largest tap.
      while quantised.count > 1, quantised.last == 0 { quantised.removeLast() }
      while quantised.count > 1, quantised.first == 0 {
        quantised.removeFirst()
        first += 1
      }
      let largest = quantised.indices.max { abs(quantised[$0]) < abs(quantised[$1]) }!
      quantised[largest] += one - quantised.reduce(0, +)
      starts[slot] = Int32(first)
      counts[slot] = Int32(quantised.count)
      rows.append(quantised.map { Int16(clamping: $0) })
    }
    let taps = max(1, Int(counts.max() ?? 1))
    var weights = [Int16](repeating: 0, count: window.count * taps)
    for (slot, row) in rows.enumerated() {
      for (t, w) in row.enumerated() { weights[slot * taps + t] = w }
    }
    self.outputCount = window.count
    self.tapsPerOutput = taps
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
