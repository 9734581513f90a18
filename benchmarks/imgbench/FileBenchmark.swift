import Foundation
import ImageCodecs

/// Measures every case of one file on both sides, alternating them so that noise from other
/// processes falls on imgfetch and the C baseline alike.
struct FileBenchmark {
  let path: String
  let iterations: Int
  let warmup: Int
  /// The cases to run; every case that applies to the format when empty.
  let only: Set<DecodeCase>
  /// The sides to run; both when empty.
  let sides: Set<Side>

  /// Reads the file once, checks both sides agree on every pixel, warms up, then times
  /// `iterations` rounds. Each round runs every (case, side) pair once, starting one
  /// pair later than the round before, so no pair always runs first or right after another.
  func run() throws -> FileResult {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw BenchError("cannot read \(path)")
    }
    let bytes = [UInt8](data)
    let header = try ImageDecoder.probe(bytes)
    let pair = try DecoderPair(bytes: bytes, header: header)
    let cases = DecodeCase.cases(for: header.format).filter { only.isEmpty || only.contains($0) }
    let megapixels = Double(header.width * header.height) / 1e6

    var checks: [DecodeCase: (width: Int, height: Int, same: Bool)] = [:]
    var outputFormat = ""
    for kase in cases {
      let (image, same) = try pair.freshPair(kase)
      checks[kase] = (image.width, image.height, same)
      outputFormat = image.pixelFormat.description
    }

    let order = cases.flatMap { kase in
      Side.allCases.filter { sides.isEmpty || sides.contains($0) }.map { (kase, $0) }
    }
    for _ in 0..<warmup {
      for (kase, side) in order { try pair.decode(side, kase) }
    }
    var samples: [String: [Meter.Sample]] = [:]
    for round in 0..<iterations {
      for step in 0..<order.count {
        let (kase, side) = order[(step + round) % order.count]
        let sample = try Meter.measure { try pair.decode(side, kase) }
        samples["\(kase.rawValue)/\(side.rawValue)", default: []].append(sample)
      }
    }

    let results = cases.map { kase in
      let swiftSamples = samples["\(kase.rawValue)/swift"] ?? []
      let cSamples = samples["\(kase.rawValue)/c"] ?? []
      let swift = Timing(swiftSamples, megapixels: megapixels)
      let c = Timing(cSamples, megapixels: megapixels)
      let paired = zip(swiftSamples, cSamples).map { Timing.ratio($1.wall, $0.wall) }.sorted()
      let check = checks[kase]!
      return CaseResult(
        name: kase, outputWidth: check.width, outputHeight: check.height, pixelsMatch: check.same,
        swift: swift, c: c, ratio: Timing.ratio(swift.megapixelsPerSecond, c.megapixelsPerSecond),
        cpuRatio: Timing.ratio(swift.cpuMegapixelsPerSecond, c.cpuMegapixelsPerSecond),
        pairedRatio: Timing.median(paired))
    }
    // Peak RSS per side comes from child processes, after the timing, so it cannot disturb it.
    return FileResult(
      file: URL(fileURLWithPath: path).lastPathComponent, format: header.format.rawValue,
      coding: FileBenchmark.coding(header), detail: FileBenchmark.detail(header), width: header.width,
      height: header.height, megapixels: megapixels, outputFormat: outputFormat,
      swiftPeakRSSMiB: PeakMemory.measure(.swift, path: path),
      cPeakRSSMiB: PeakMemory.measure(.c, path: path),
      cases: results)
  }

  static func coding(_ header: ImageHeader) -> String {
    switch header.format {
    case .jpeg: header.isProgressive ? "progressive" : "baseline"
    case .png: header.isInterlaced ? "interlaced" : "plain"
    }
  }

  static func detail(_ header: ImageHeader) -> String {
    switch header.format {
    case .jpeg: header.chromaSubsampling ?? header.colorType.rawValue
    case .png: "\(header.colorType.rawValue) \(header.bitDepth)-bit"
    }
  }

  static func mebibytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }
}
