/// The summary of one side's samples for one file and case: medians and the spread.
struct Timing: Codable {
  /// Samples taken (after the warm-up).
  var runs: Int
  /// Median wall time of one decode, milliseconds.
  var medianMs: Double
  /// Fastest and slowest wall time, milliseconds.
  var minMs: Double
  var maxMs: Double
  /// Median thread CPU time, milliseconds.
  var cpuMedianMs: Double
  /// Source megapixels per second at the median wall time; `best` and `worst` at the min and max.
  var megapixelsPerSecond: Double
  var bestMegapixelsPerSecond: Double
  var worstMegapixelsPerSecond: Double
  /// Source megapixels per second at the median CPU time.
  var cpuMegapixelsPerSecond: Double
  /// Median minor page faults per decode.
  var minorFaults: Int
  /// Every wall time, milliseconds, in the order of the rounds (for paired ratios).
  var wallMs: [Double]

  /// Summarises samples of decodes of an image of `megapixels` source megapixels.
  init(_ samples: [Meter.Sample], megapixels: Double) {
    wallMs = samples.map { $0.wall * 1e3 }
    let wall = samples.map(\.wall).sorted()
    runs = samples.count
    medianMs = Timing.median(wall) * 1e3
    minMs = (wall.first ?? 0) * 1e3
    maxMs = (wall.last ?? 0) * 1e3
    cpuMedianMs = Timing.median(samples.map(\.cpu).sorted()) * 1e3
    megapixelsPerSecond = Timing.rate(megapixels, ms: medianMs)
    bestMegapixelsPerSecond = Timing.rate(megapixels, ms: minMs)
    worstMegapixelsPerSecond = Timing.rate(megapixels, ms: maxMs)
    cpuMegapixelsPerSecond = Timing.rate(megapixels, ms: cpuMedianMs)
    minorFaults = Int(Timing.median(samples.map { Double($0.minorFaults) }.sorted()).rounded())
  }

  /// The middle of sorted values (the mean of the two middle ones for an even count); 0 when empty.
  static func median(_ sorted: [Double]) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  /// `a / b`, or 0 when `b` is 0 (a side that did not run), so the JSON never holds inf or NaN.
  static func ratio(_ a: Double, _ b: Double) -> Double { b > 0 ? a / b : 0 }

  static func rate(_ megapixels: Double, ms: Double) -> Double {
    ms > 0 ? megapixels / (ms / 1e3) : 0
  }
}
