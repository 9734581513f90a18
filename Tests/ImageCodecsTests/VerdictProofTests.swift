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
/// Serialized, and yielding between decodes: its cases are long runs of synchronous decodes, which
/// would otherwise hold the threads of the cooperative pool that other suites' waits resume on.
@Suite(.serialized, .timeLimit(.minutes(30))) struct VerdictProofTests {
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
    ImageFormat(sniffing: bytes) == .jpeg  // SOI, as the decoders sniff it (a stray byte may follow)
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

  @Test func everyFixtureHasOneVerdictAtEveryScaleAndInEveryChunking() async throws {
    let root = Fixtures.root
    var inputs: [URL] = []
    for directory in ["Fixtures/images", "Fixtures/hostile", "Fixtures/regressions", "fuzz/seeds"] {
      inputs += Self.files(under: root.appendingPathComponent(directory))
        .filter { !["md", "py", "sh", "tsv", "txt"].contains($0.pathExtension) && $0.lastPathComponent != "LICENSES" }
    }
    #expect(inputs.count > 200)
    var problems: [String] = []
    for (index, url) in inputs.enumerated() {
      await Task.yield()
      problems += Self.check(try Self.read(url), name: url.lastPathComponent, seed: UInt64(index + 1))
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  @Test func everyTruncationOfTheSweepsHasOneVerdict() async throws {
    var problems: [String] = []
    let jpeg = try Fixtures.bytes("testorig.jpg")
    for length in stride(from: 0, to: jpeg.count, by: 97) {
      await Task.yield()
      problems += Self.check(Array(jpeg[..<length]), name: "testorig.jpg[..<\(length)]", seed: UInt64(length + 1))
    }
    let png = try Fixtures.bytes("basn6a08.png")
    for length in 0...png.count {
      await Task.yield()
      problems += Self.check(Array(png[..<length]), name: "basn6a08.png[..<\(length)]", seed: UInt64(length + 1))
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// The inputs on which the decoders once disagreed (Fixtures/regressions/Verdicts, from the fuzz
  /// corpora and FuzzStreaming's findings), each with the verdict decided for it (ImageCodecs.docc, "Decoding
  /// policy"): a bad Huffman code is `corrupt` wherever libjpeg meets it; FF fill bytes before a
  /// stuffed FF give the same pixels; a PNG cut inside a chunk is `truncated` (unless the chunk's
  /// header is impossible); damage in IDAT data that the data completes is `corrupt`.
  static let decided: [(name: String, verdict: Verdict)] = [
    ("jpeg-bad-huffman-code-mid-scan.jpg", .rejected(.corrupt)),
    ("jpeg-bad-huffman-code-mid-scan-2.jpg", .rejected(.corrupt)),
    ("jpeg-bad-huffman-code-mid-scan-3.jpg", .rejected(.corrupt)),
    ("jpeg-bad-huffman-code-then-end-of-file.jpg", .rejected(.corrupt)),
    ("jpeg-bad-huffman-code-then-premature-end.jpg", .rejected(.corrupt)),
    ("jpeg-ff-fill-before-stuffed-ff.jpg", .accepted),
    ("jpeg-ff-fill-before-stuffed-ff-2.jpg", .accepted),
    // FuzzJPEGEngine (2 Dec, UBSan): a progressive scan's DHT whose codes of one length overflow it;
    // the engine filled its lookups past their end before refusing the table. libjpeg's verdict.
    ("jpeg-huffman-codes-overflow-their-length.jpg", .rejected(.corrupt)),
    ("png-bad-adler32-no-iend.png", .rejected(.corrupt)),
    ("png-bad-filter-in-cut-idat.png", .rejected(.truncated)),
    ("png-duplicate-plte-cut.png", .rejected(.truncated)),
    ("png-exif-before-ihdr-cut.png", .rejected(.truncated)),
    ("png-exif-before-ihdr-whole.png", .rejected(.corrupt)),
    ("png-idat-damage-in-cut-idat.png", .rejected(.truncated)),
    ("png-idat-zlib-damage-cut.png", .rejected(.truncated)),
    ("png-iend-first-long-cut.png", .rejected(.truncated)),
    ("png-interlaced-idat-damage-crc-cut.png", .rejected(.truncated)),
    ("png-invalid-chunk-type-after-idat.png", .rejected(.corrupt)),
    ("png-second-ihdr-huge-size.png", .rejected(.truncated)),
    ("badadler.png", .rejected(.corrupt)),  // Fixtures/images: its Adler-32 is in the last row's zlib call
    // FuzzWebP (3 Dec): an extended WebP whose VP8X canvas the VP8 bitstream's header contradicts.
    // libwebp's WebPGetFeatures answers from the VP8X chunk alone until the bitstream's header has
    // arrived: a stream took that answer, then called the image data corrupt; the header is read
    // only once the answer is final. dwebp's verdict (BITSTREAM_ERROR in the header).
    ("webp-vp8x-header-before-the-bitstream-header.webp", .rejected(.corrupt)),
    // FuzzWebP (3 Dec): a VP8L chunk whose size (14) is shorter than its bitstream, which runs on into
    // the bytes after it. dwebp (WebPDecode) reads on and decodes it; libwebp's incremental decoder
    // refused it when those bytes had not arrived yet. A refusal before the last byte now waits for
    // it and decodes all in one call: accepted everywhere, dwebp's verdict.
    ("webp-lossless-bitstream-past-its-chunk.webp", .accepted),
    // FuzzWebP (3 Dec): bytes after WEBP that are not a chunk, read by libwebp as a bare VP8
    // bitstream: WebPGetFeatures refuses some prefixes of it (BITSTREAM_ERROR) and accepts the
    // whole, whose data then ends early. A stream took a prefix's refusal; the header's answer now
    // counts only once it is final. dwebp's verdict (NOT_ENOUGH_DATA).
    ("webp-header-refused-on-a-prefix.webp", .rejected(.truncated)),
    // FuzzWebP (3 Dec): a 1x7 lossy image whose data ends early (dwebp: NOT_ENOUGH_DATA), which
    // libwebp's incremental decoder accepted when given a byte at a time. It is now given the bytes
    // in fixed steps on every path: `truncated` everywhere.
    ("webp-lossy-accepted-in-one-byte-pieces.webp", .rejected(.truncated)),
  ]

  /// Decodes `bytes` with a `StreamingDecoder`, appending them in the pieces `cuts` marks (offsets).
  static func stream(_ bytes: [UInt8], cuts: [Int], options: DecodeOptions = DecodeOptions())
    -> Result<Image, DecodeError>
  {
    StreamingDecoderTests.stream(bytes, cuts: cuts, options: options)
  }

  @Test(arguments: decided.map(\.name))
  func aDecidedInputHasItsVerdictFromMemoryFromAFileAndInAnyChunking(_ name: String) async throws {
    let expected = try #require(Self.decided.first { $0.name == name }).verdict
    let directory = name == "badadler.png" ? "Fixtures/images" : "Fixtures/regressions/Verdicts"
    let path = Fixtures.root.appendingPathComponent("\(directory)/\(name)").path
    let bytes = try Self.read(URL(fileURLWithPath: path))
    let reference = StreamingDecoderTests.oneCall(bytes)
    #expect(Self.verdict(reference) == expected, "\(name) one call from memory: \(reference)")
    let fromFile: Result<Image, DecodeError>
    do throws(DecodeError) { fromFile = .success(try ImageDecoder.decode(contentsOf: path)) } catch {
      fromFile = .failure(error)
    }
    #expect(Self.verdict(fromFile) == expected, "\(name) one call from the file: \(fromFile)")
    if case .success(let a) = fromFile, case .success(let b) = reference { #expect(a == b, "\(name): file pixels") }
    let validated: Verdict
    do throws(DecodeError) {
      _ = try ImageDecoder.validate(contentsOf: path)
      validated = .accepted
    } catch { validated = .rejected(error.kind) }
    #expect(validated == expected, "\(name) validated")
    if Self.isJPEG(bytes) {
      for eighths in 1...7 {
        let scaled = StreamingDecoderTests.oneCall(
          bytes, options: DecodeOptions(jpegScale: JPEGScale(eighths: eighths)))
        #expect(Self.verdict(scaled) == expected, "\(name) at \(eighths)/8")
      }
    }
    // Fixed piece sizes, seeded random ones, and every split in two (every 7th for the larger files).
    var chunkings: [(String, [Int])] = []
    for size in [1, 2, 3, 7, 64, 511, 512, 4096] {
      chunkings.append(("pieces of \(size)", Array(stride(from: size, to: bytes.count, by: size))))
    }
    var generator = SplitMix(seed: UInt64(bytes.count))
    for round in 0..<8 {
      var cuts: [Int] = []
      var offset = 0
      while offset < bytes.count {
        offset += 1 + Int(generator.next() % UInt64(1 + round * 300))
        cuts.append(offset)
      }
      chunkings.append(("random pieces, round \(round)", cuts))
    }
    for cut in stride(from: 1, to: bytes.count, by: bytes.count <= 2048 ? 1 : 7) {
      chunkings.append(("split at \(cut)", [cut]))
    }
    var problems: [String] = []
    for (label, cuts) in chunkings {
      await Task.yield()
      let streamed = Self.stream(bytes, cuts: cuts)
      if Self.verdict(streamed) != expected {
        problems.append("\(label): \(Self.verdict(streamed)) (\(streamed))")
      } else if case .success(let image) = streamed, case .success(let one) = reference, image != one {
        problems.append("\(label): different pixels")
      }
    }
    #expect(problems.isEmpty, "\(name), expected \(expected), streamed: \(problems.prefix(10).joined(separator: "; "))")
  }

  @Test func theLocalFuzzCorporaHaveOneVerdict() async throws {
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
          await Task.yield()
          guard let data = try? Data(contentsOf: url), data.count <= 65536 else { continue }
          checked += 1
          problems += Self.check([UInt8](data), name: url.path, seed: UInt64(checked), limits: limits)
        }
      }
    }
    #expect(problems.isEmpty, "\(checked) corpus files: \(problems.joined(separator: "\n"))")
  }
}
