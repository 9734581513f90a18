import Foundation
import ImageCodecs

/// Measures every case of one file on both sides, and the in-process thumbnail, alternating them
/// so that noise from other processes falls on imgfetch and the C baseline alike.
struct FileBenchmark {
  /// One timed step of a round.
  enum Step: Hashable {
    case decode(DecodeCase, Side)
    case thumbnail
  }

  let path: String
  let iterations: Int
  let warmup: Int
  /// The decode cases to run (those of them that apply to the format).
  let only: Set<DecodeCase>
  /// Whether to time the 256-px thumbnail.
  let thumbnail: Bool
  /// The sides to run; both when empty.
  let sides: Set<Side>

  /// Reads the file once, checks both sides agree on every pixel, warms up, then times
  /// `iterations` rounds. Each round runs every step once, starting one step later than the round
  /// before, so no step always runs first or right after another.
  func run() throws -> FileResult {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw BenchError("cannot read \(path)")
    }
    let bytes = [UInt8](data)
    let header = try ImageDecoder.probe(bytes)
    let pair = try DecoderPair(bytes: bytes, header: header)
    let cases = DecodeCase.cases(for: header.format).filter { only.contains($0) }
    let megapixels = Double(header.width * header.height) / 1e6

    var checks: [DecodeCase: (width: Int, height: Int, same: Bool)] = [:]
    var outputFormat = ""
    for kase in cases {
      let (image, same) = try pair.freshPair(kase)
      checks[kase] = (image.width, image.height, same)
      outputFormat = image.pixelFormat.description
    }
    let runsSwift = sides.isEmpty || sides.contains(.swift)
    let thumbnailSize = thumbnail && runsSwift ? try pair.thumbnail() : nil

    var order = cases.flatMap { kase in
      Side.allCases.filter { sides.isEmpty || sides.contains($0) }.map { Step.decode(kase, $0) }
    }
    if thumbnailSize != nil { order.append(.thumbnail) }
    for _ in 0..<warmup {
      for step in order { try run(step, pair) }
    }
    var samples: [Step: [Meter.Sample]] = [:]
    for round in 0..<iterations {
      for index in 0..<order.count {
        let step = order[(index + round) % order.count]
        let sample = try Meter.measure { try run(step, pair) }
        samples[step, default: []].append(sample)
      }
    }

    let results = cases.map { kase in
      let swiftSamples = samples[.decode(kase, .swift)] ?? []
      let cSamples = samples[.decode(kase, .c)] ?? []
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
    let thumbnailResult = thumbnailSize.map { image in
      ThumbnailResult(
        width: image.width, height: image.height,
        timing: Timing(samples[.thumbnail] ?? [], megapixels: megapixels),
        eighthDecodeMs: results.first { $0.name == .eighth }?.c.medianMs)
    }
    // Peak RSS per side comes from child processes, after the timing, so it cannot disturb it.
    return FileResult(
      file: URL(fileURLWithPath: path).lastPathComponent, format: header.format.rawValue,
      coding: FileBenchmark.coding(header), detail: FileBenchmark.detail(header), width: header.width,
      height: header.height, megapixels: megapixels, outputFormat: outputFormat,
      swiftPeakRSSMiB: PeakMemory.measure(.swift, path: path),
      cPeakRSSMiB: PeakMemory.measure(.c, path: path),
      cases: results, thumbnail: thumbnailResult)
  }

  private func run(_ step: Step, _ pair: DecoderPair) throws {
    switch step {
    case .decode(let kase, let side): try pair.decode(side, kase)
    case .thumbnail: try pair.thumbnail()
    }
  }

  static func coding(_ header: ImageHeader) -> String {
    switch header.format {
    case .jpeg: header.isProgressive ? "progressive" : "baseline"
    case .png: header.isInterlaced ? "interlaced" : "plain"
    case .webp: header.isLossless ? "lossless" : "lossy"
    case .gif: header.isInterlaced ? "interlaced" : "plain"
    case .heic, .avif: header.format.rawValue
    }
  }

  static func detail(_ header: ImageHeader) -> String {
    switch header.format {
    case .jpeg: header.chromaSubsampling ?? header.colorType.rawValue
    case .png: "\(header.colorType.rawValue) \(header.bitDepth)-bit"
    case .webp: header.colorType.rawValue
    case .gif: "gif \(header.frameCount) frame\(header.frameCount == 1 ? "" : "s")"
    case .heic, .avif: "\(header.colorType.rawValue) \(header.bitDepth)-bit"
    }
  }

  static func mebibytes(_ bytes: Int) -> Double { Double(bytes) / 1_048_576 }
}
