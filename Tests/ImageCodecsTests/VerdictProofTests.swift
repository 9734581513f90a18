import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// Issue 10.1's proof: the decode that makes a thumbnail can be the validation, because
/// - a DCT-scaled JPEG decode (1/8 ... 7/8) reaches the same verdict as the full-size decode (accept,
///   or reject with the same `DecodeError.Kind`): it still entropy-decodes every coefficient of every
///   scan, so it sees the same truncation and damage; and
/// - the `StreamingDecoder`, fed the same bytes in seeded random chunk sizes, reaches the one-call
///   decode's verdict and, when it accepts, the same pixels.
/// Over every fixture (Fixtures/images, hostile, regressions), every truncation of the sweeps the
/// other suites use (testorig.jpg every 97 bytes, basn6a08.png at every length), the committed fuzz
/// seeds and, when present, the local fuzz corpora (.build/fuzz*/corpus).
@Suite struct VerdictProofTests {
  /// A verdict: accepted, or the kind of the rejection.
  enum Verdict: Equatable, CustomStringConvertible {
    case accepted
    case rejected(DecodeError.Kind)
    var description: String {
      switch self {
      case .accepted: "accepted"
      case .rejected(let kind): "rejected(\(kind))"
      }
    }
  }

  static func verdict(_ result: Result<Image, DecodeError>) -> Verdict {
    switch result {
    case .success: .accepted
    case .failure(let error): .rejected(error.kind)
    }
  }

  static func isJPEG(_ bytes: [UInt8]) -> Bool {
    bytes.count >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
  }

  /// Checks one input; returns a description of each disagreement.
  static func check(_ bytes: [UInt8], name: String, seed: UInt64, limits: DecodeLimits = .standard) -> [String] {
    var problems: [String] = []
    let options = DecodeOptions(limits: limits)
    let full = StreamingDecoderTests.oneCall(bytes, options: options)
    let expected = verdict(full)
    if isJPEG(bytes) {
      for eighths in 1...7 {
        var scaled = options
        scaled.jpegScale = JPEGScale(eighths: eighths)
        let got = verdict(StreamingDecoderTests.oneCall(bytes, options: scaled))
        if got != expected { problems.append("\(name) at \(eighths)/8: \(got), full size: \(expected)") }
      }
    }
    let streamed = StreamingDecoderTests.stream(bytes, options: options, seed: seed, maxChunk: 1 + Int(seed % 3000))
    if verdict(streamed) != expected {
      problems.append("\(name) streamed: \(verdict(streamed)), one call: \(expected)")
    } else if case .success(let image) = streamed, case .success(let reference) = full, image != reference {
      problems.append("\(name) streamed: different pixels")
    }
    return problems
  }

  /// Every regular file under `directory`, recursively, sorted.
  static func files(under directory: URL) -> [URL] {
    guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
    else { return [] }
    return walker.compactMap { $0 as? URL }
      .filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
      .sorted { $0.path < $1.path }
  }

  /// A file's bytes. (An empty file is not read through `Data(contentsOf:)`, whose 4 KiB read buffer
  /// for it LeakSanitizer reports as a leak in FoundationEssentials.)
  static func read(_ url: URL) throws -> [UInt8] {
    let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
    return size == 0 ? [] : [UInt8](try Data(contentsOf: url))
  }

  @Test func everyFixtureHasOneVerdictAtEveryScaleAndInEveryChunking() throws {
    let root = Fixtures.root
    var inputs: [URL] = []
    for directory in ["Fixtures/images", "Fixtures/hostile", "Fixtures/regressions", "fuzz/seeds"] {
      inputs += Self.files(under: root.appendingPathComponent(directory))
        .filter { !["md", "py", "sh", "tsv", "txt"].contains($0.pathExtension) && $0.lastPathComponent != "LICENSES" }
    }
    #expect(inputs.count > 200)
    var problems: [String] = []
    for (index, url) in inputs.enumerated() {
      problems += Self.check(try Self.read(url), name: url.lastPathComponent, seed: UInt64(index + 1))
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  @Test func everyTruncationOfTheSweepsHasOneVerdict() throws {
    var problems: [String] = []
    let jpeg = try Fixtures.bytes("testorig.jpg")
    for length in stride(from: 0, to: jpeg.count, by: 97) {
      problems += Self.check(Array(jpeg[..<length]), name: "testorig.jpg[..<\(length)]", seed: UInt64(length + 1))
    }
    let png = try Fixtures.bytes("basn6a08.png")
    for length in 0...png.count {
      problems += Self.check(Array(png[..<length]), name: "basn6a08.png[..<\(length)]", seed: UInt64(length + 1))
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  @Test func theLocalFuzzCorporaHaveOneVerdict() throws {
    // Present after `scripts/fuzz` has run here (not committed); a pixel cap keeps each input fast,
    // applied to every path alike.
    let limits = DecodeLimits(maxPixels: 1 << 20)
    var problems: [String] = []
    var checked = 0
    let build = Fixtures.root.appendingPathComponent(".build")
    let fuzzDirectories = ((try? FileManager.default.contentsOfDirectory(atPath: build.path)) ?? [])
      .filter { $0.hasPrefix("fuzz") }.sorted()
    for directory in fuzzDirectories {
      for target in ["FuzzPNG", "FuzzJPEG", "FuzzProbe", "FuzzThumbnail"] {
        let corpus = build.appendingPathComponent("\(directory)/corpus/\(target)")
        for url in Self.files(under: corpus).prefix(500) {
          guard let data = try? Data(contentsOf: url), data.count <= 65536 else { continue }
          checked += 1
          problems += Self.check([UInt8](data), name: url.path, seed: UInt64(checked), limits: limits)
        }
      }
    }
    #expect(problems.isEmpty, "\(checked) corpus files: \(problems.joined(separator: "\n"))")
  }
}
