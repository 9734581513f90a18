/// Everything one imgbench run measured; encoded as the `--json` output.
struct RunResult: Codable {
  /// `"imgbench"`, so a reader can tell the document apart from the compare script's.
  var tool = "imgbench"
  /// When the run started (ISO 8601, UTC).
  var date: String
  /// The machine the figures belong to.
  var machine: Machine
  /// The libraries both sides link.
  var libraries: String
  /// Timed decodes per file, case and side; and untimed warm-up rounds before them.
  var iterations: Int
  var warmup: Int
  /// Per-file results, in the order given.
  var files: [FileResult]
  /// Totals per format and per JPEG coding.
  var aggregates: [Aggregate]
  /// Mean in-process thumbnail times per format.
  var thumbnails: [ThumbnailTotal]
  /// The throughput targets, checked against the aggregates.
  var targets: [Target]
  /// Peak RSS of the whole run (`ru_maxrss`), MiB.
  var peakRSSMiB: Double
  /// Wall seconds the run took.
  var seconds: Double
}

/// Where a run happened.
struct Machine: Codable {
  var cpu: String
  var cores: Int
  var kernel: String
  var memoryGiB: Double
}

/// One file's results.
struct FileResult: Codable {
  var file: String
  var format: String
  /// JPEG: `baseline` or `progressive`; PNG: `interlaced` or `plain`.
  var coding: String
  /// JPEG: the chroma subsampling; PNG: the colour type and depth.
  var detail: String
  var width: Int
  var height: Int
  var megapixels: Double
  /// The pixel format both sides produced.
  var outputFormat: String
  /// Peak RSS of a process that decodes the file once into a new buffer, MiB, per side.
  var swiftPeakRSSMiB: Double?
  var cPeakRSSMiB: Double?
  var cases: [CaseResult]
  /// The 256-px thumbnail made in memory by `Thumbnailer`, when it was timed.
  var thumbnail: ThumbnailResult?
}

/// One file's in-process thumbnail: its size and how long it took (imgfetch only; there is no C
/// thumbnailer to hold it to, so the C side's 1/8 DCT decode of the same file is given as a yardstick).
struct ThumbnailResult: Codable {
  var width: Int
  var height: Int
  var timing: Timing
  /// The C baseline's median 1/8 decode of the file, milliseconds (JPEG only).
  var eighthDecodeMs: Double?
}

/// The mean in-process thumbnail time over a group of files.
struct ThumbnailTotal: Codable {
  /// `jpeg` or `png`.
  var group: String
  var files: Int
  /// Mean over the files of their median wall and CPU milliseconds.
  var meanMs: Double
  var cpuMeanMs: Double
}

/// One case of one file: both sides, and how they compare.
struct CaseResult: Codable {
  var name: DecodeCase
  var outputWidth: Int
  var outputHeight: Int
  /// Whether imgfetch and the C baseline produced identical bytes.
  var pixelsMatch: Bool
  var swift: Timing
  var c: Timing
  /// imgfetch throughput over C throughput at the median wall time (above 1: imgfetch faster).
  var ratio: Double
  /// The same at the median thread CPU time.
  var cpuRatio: Double
  /// The median over rounds of C time over imgfetch time within the round: each pair ran close
  /// together, so a burst of load from other processes hits both; the steadiest estimate here.
  var pairedRatio: Double
}

/// Totals for a group of files and one case: total megapixels over the sum of median times.
struct Aggregate: Codable {
  /// `jpeg`, `jpeg-baseline`, `jpeg-progressive`, `png` or `all`.
  var group: String
  var name: DecodeCase
  var files: Int
  var megapixels: Double
  var swiftMegapixelsPerSecond: Double
  var cMegapixelsPerSecond: Double
  var ratio: Double
  var swiftCPUMegapixelsPerSecond: Double
  var cCPUMegapixelsPerSecond: Double
  var cpuRatio: Double
  /// Median over rounds of the round's total C time over its total imgfetch time (see
  /// ``CaseResult/pairedRatio``).
  var pairedRatio: Double
  /// For the fresh case: imgfetch over the C ceiling with a *reused* buffer, as the target is set.
  var ratioToReusedCeiling: Double?
}

/// A target from the benchmark issue and the measured figure.
struct Target: Codable {
  var name: String
  var goal: Double
  var measured: Double
  var cpuMeasured: Double
  var met: Bool
}
