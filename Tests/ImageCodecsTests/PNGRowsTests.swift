import FixtureSupport
import Foundation
@_spi(Fuzzing) import ImageCodecs
import Testing

/// imgfetch's own PNG image-data path (`imc_png_fast.c`: a PNG's IDAT chunks inflated, plain or
/// Adam7-interlaced, the row filters undone on SSE2) must be invisible: for every input, every source (memory, a file, a
/// validation, a stream in random pieces) and every output format, the same verdict, the same error
/// message and the same pixels as libpng reading the rows itself (`libpngOnly`).
///
/// The inputs: every PNG fixture, the generated files of `Fixtures/png-rows` (every colour type at 8
/// and 16 bits, each filter type, many IDAT chunks, and the same interlaced), every truncation of some of them, and damaged
/// copies whose CRCs were made right again, so that zlib and the filters meet the damage.
@Suite(.serialized, .timeLimit(.minutes(30))) struct PNGRowsTests {
  typealias Outcome = EighthScaleDecoderTests.Outcome

  static func options(_ format: PixelFormatRequest, libpngOnly: Bool) -> DecodeOptions {
    var options = DecodeOptions(pixelFormat: format)
    options.libpngOnly = libpngOnly
    return options
  }

  static func isPNG(_ bytes: [UInt8]) -> Bool { bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) }

  static var generated: [URL] {
    VerdictProofTests.files(under: Fixtures.root.appendingPathComponent("Fixtures/png-rows"))
      .filter { $0.pathExtension == "png" }
  }

  /// The disagreements between the two paths on `bytes`, described: each source decoded by both.
  static func disagreements(_ bytes: [UInt8], name: String, seed: UInt64, formats: [PixelFormatRequest]) throws
    -> [String]
  {
    try DecoderPathComparison.disagreements(
      bytes, name: name, seed: seed, library: "libpng", formats: formats, maxChunk: 9_000,
      options: { options($0, libpngOnly: $1) })
  }

  @Test func everyPNGFixtureDecodesAsLibpngAloneDoes() async throws {
    var inputs: [URL] = []
    for directory in ["Fixtures/images", "Fixtures/hostile", "Fixtures/regressions", "Fixtures/png-rows", "fuzz/seeds"]
    {
      inputs += VerdictProofTests.files(under: Fixtures.root.appendingPathComponent(directory))
    }
    var problems: [String] = []
    var checked = 0
    for (index, url) in inputs.enumerated() {
      let bytes = try VerdictProofTests.read(url)
      guard Self.isPNG(bytes) else { continue }
      await Task.yield()
      checked += 1
      problems += try Self.disagreements(
        bytes, name: url.lastPathComponent, seed: UInt64(index + 1), formats: PixelFormatRequest.allCases)
    }
    #expect(checked > 200)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// The generated files are all ones the path takes: it decodes each to its end from memory, a
  /// file and a stream, except the one with a chunk after the image data, which it hands to libpng.
  @Test func thePathDecodesThePlainFilesItselfAndHandsTheRestToLibpng() throws {
    for url in Self.generated {
      let bytes = try VerdictProofTests.read(url)
      let handsOver = url.lastPathComponent.contains("after-data")
      for (source, decode) in [
        ("memory", { () throws(DecodeError) in _ = try ImageDecoder.decode(bytes, options: DecodeOptions()) }),
        ("file", { () throws(DecodeError) in _ = try ImageDecoder.decode(contentsOf: url.path) }),
        ("validation", { () throws(DecodeError) in _ = try ImageDecoder.validate(contentsOf: url.path) }),
        ("stream", { () throws(DecodeError) in _ = try StreamingDecoderTests.stream(bytes, maxChunk: 333).get() }),
      ] as [(String, () throws(DecodeError) -> Void)] {
        let before = PNGRowsCounts.current()
        try decode()
        let after = PNGRowsCounts.current()
        let name = "\(url.lastPathComponent) from \(source)"
        #expect(after.finished - before.finished == (handsOver ? 0 : 1), "\(name): finished")
        #expect(after.gaveUp - before.gaveUp == (handsOver ? 1 : 0), "\(name): gave up")
      }
    }
    #expect(Self.generated.count >= 55)
  }

  /// Adam7 (the `adam7-*` files: every colour type and depth the path takes, 1x1 to 9x9 and one pixel
  /// wide or high, so that some passes are empty, every filter type in each pass, many IDATs): in
  /// every output format, from memory, from a file and streamed in random pieces, libpng's own
  /// pixels; the path never gives up on one, and finishes each RGB(A) decode and validation itself.
  @Test func interlacedFilesGiveLibpngsPixelsInEveryFormat() async throws {
    let files = Self.generated.filter {
      $0.lastPathComponent.hasPrefix("adam7-") && !$0.lastPathComponent.contains("after-data")
    }
    #expect(files.count == 141)
    var problems: [String] = []
    for (index, url) in files.enumerated() {
      await Task.yield()
      let bytes = try VerdictProofTests.read(url)
      let name = url.lastPathComponent
      let before = PNGRowsCounts.current()
      var taken = 0
      var images = 0
      for format in PixelFormatRequest.allCases {
        let expected = Outcome(StreamingDecoderTests.oneCall(bytes, options: Self.options(format, libpngOnly: true)))
        // libpng alone refuses some requests (RGB from a palette with tRNS): everyPNGFixture... compares those verdicts
        guard case .image = expected else { continue }
        images += 1
        let ours = Self.options(format, libpngOnly: false)
        let before = PNGRowsCounts.current()
        var decoded: [(String, Outcome)] = [
          ("memory", Outcome(StreamingDecoderTests.oneCall(bytes, options: ours))),
          ("file", Outcome(Self.decodeFile(url.path, options: ours))),
        ]
        for maxChunk in [5, 64, 4_000] {
          let streamed = StreamingDecoderTests.stream(
            bytes, options: ours, seed: UInt64(index * 31 + maxChunk), maxChunk: maxChunk)
          decoded.append(("stream in pieces up to \(maxChunk)", Outcome(streamed)))
        }
        let after = PNGRowsCounts.current()
        if format == .rgba8 || format == .rgb8 {
          taken += decoded.count
          if after.finished - before.finished != decoded.count { problems.append("\(name) \(format): not the path") }
        }
        for (source, image) in decoded where image != expected { problems.append("\(name) \(format) from \(source)") }
      }
      _ = try ImageDecoder.validate(contentsOf: url.path)
      let after = PNGRowsCounts.current()
      if after.gaveUp != before.gaveUp { problems.append("\(name): the path gave up") }
      if after.finished - before.finished < taken + 1 { problems.append("\(name): validation not by the path") }
      if images < 3 { problems.append("\(name): only \(images) formats decoded") }
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  static func decodeFile(_ path: String, options: DecodeOptions) -> Result<Image, DecodeError> {
    do throws(DecodeError) { return .success(try ImageDecoder.decode(contentsOf: path, options: options)) } catch {
      return .failure(error)
    }
  }

  /// PngSuite's interlaced images of 8 and 16 bits (basi*): the path finishes them as RGBA, with
  /// libpng's pixels (their verdicts in every format: everyPNGFixtureDecodesAsLibpngAloneDoes).
  @Test func pngSuiteInterlacedImagesAreThePaths() throws {
    for name in ["basi0g08", "basi0g16", "basi2c08", "basi3p08", "basi4a08", "basi4a16", "basi6a08"] {
      let url = Fixtures.root.appendingPathComponent("Fixtures/images/\(name).png")
      let bytes = try VerdictProofTests.read(url)
      let expected = try ImageDecoder.decode(bytes, options: Self.options(.rgba8, libpngOnly: true))
      let before = PNGRowsCounts.current()
      let image = try ImageDecoder.decode(bytes, options: Self.options(.rgba8, libpngOnly: false))
      let after = PNGRowsCounts.current()
      #expect(image == expected, "\(name)")
      #expect(after.finished - before.finished == 1, "\(name): finished by the path")
    }
  }

  /// Unfiltered rows are right: the files of one colour type and depth hold the same pixels with
  /// every filter type (generate.py), so all five decode alike, and like the mixed-filter file's
  /// own libpng decode.
  @Test func everyFilterTypeGivesTheSamePixels() throws {
    for prefix in [
      "type0-8bit", "type0-16bit", "type2-8bit", "type2-16bit", "type4-8bit", "type4-16bit",
      "type6-8bit", "type6-16bit", "palette",
    ] {
      let images = try (0...4).map { kind in
        try ImageDecoder.decode(
          contentsOf: Fixtures.root.appendingPathComponent("Fixtures/png-rows/\(prefix)-filter\(kind).png").path,
          options: DecodeOptions(pixelFormat: .native))
      }
      #expect(images.allSatisfy { $0 == images[0] }, "\(prefix)")
    }
  }

  /// The wavefront (imc_png_fast.c undoes the filters of up to four consecutive rows together): the
  /// `wave-*` files run their rows through every combination of four filter types, for every pixel
  /// size, at widths 1, 2, 3 and 13. Each decodes to libpng's own pixels from memory, from a file and
  /// streamed in pieces of several sizes (which decide how many rows are inflated, so grouped, at
  /// once), and the path finishes every one of them itself.
  @Test func rowsUndoneTogetherGiveLibpngsPixels() async throws {
    let files = Self.generated.filter { $0.lastPathComponent.hasPrefix("wave-") }
    #expect(files.count == 36)
    var problems: [String] = []
    for (index, url) in files.enumerated() {
      let bytes = try VerdictProofTests.read(url)
      let name = url.lastPathComponent
      let expected = try ImageDecoder.decode(bytes, options: Self.options(.source, libpngOnly: true))
      let before = PNGRowsCounts.current()
      var decoded: [(String, Image)] = [
        ("memory", try ImageDecoder.decode(bytes, options: Self.options(.source, libpngOnly: false))),
        ("file", try ImageDecoder.decode(contentsOf: url.path, options: Self.options(.source, libpngOnly: false))),
      ]
      for maxChunk in [7, 100, 1_000, 30_000] {
        let streamed = StreamingDecoderTests.stream(
          bytes, options: Self.options(.source, libpngOnly: false), seed: UInt64(index + maxChunk), maxChunk: maxChunk)
        decoded.append(("stream in pieces up to \(maxChunk)", try streamed.get()))
      }
      let after = PNGRowsCounts.current()
      #expect(after.finished - before.finished == decoded.count, "\(name): finished by the path")
      for (source, image) in decoded where image != expected { problems.append("\(name) from \(source)") }
      await Task.yield()
      problems += try Self.disagreements(bytes, name: name, seed: UInt64(index + 1), formats: [.source, .rgba8])
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  @Test func everyTruncationDecodesAsLibpngAloneDoes() async throws {
    var problems: [String] = []
    for name in [
      "rgb8-many-idats.png", "rgba16-many-idats.png", "type6-8bit-mixed.png", "palette-alpha-mixed.png",
      "adam7-rgb8-mixed.png", "adam7-grayalpha16-mixed.png", "adam7-palette-alpha-9x9.png", "adam7-rgba8-3x7.png",
    ] {
      let bytes = try VerdictProofTests.read(Fixtures.root.appendingPathComponent("Fixtures/png-rows/\(name)"))
      for length in stride(from: 0, to: bytes.count + 1, by: max(1, bytes.count / 97)) {
        await Task.yield()
        problems += try Self.disagreements(
          Array(bytes[..<length]), name: "\(name)[..<\(length)]", seed: UInt64(length + 1), formats: [.source, .rgba8])
      }
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// Bytes changed anywhere after the signature, then every chunk's CRC made right again, so that
  /// the damage reaches zlib, the filter type bytes and the chunk structure rather than stopping
  /// at a CRC.
  @Test func damagedFilesWithRightCRCsDecodeAsLibpngAloneDoes() async throws {
    var problems: [String] = []
    var generator = SplitMix(seed: 0x5EED)
    for name in [
      "rgb8-many-idats.png", "type2-16bit-mixed.png", "type4-8bit-mixed.png", "palette-alpha-mixed.png",
      "rgb8-tall.png", "adam7-rgb8-mixed.png", "adam7-rgba16-mixed.png", "adam7-palette-alpha-mixed.png",
      "adam7-gray8-9x9.png",
    ] {
      let original = try VerdictProofTests.read(Fixtures.root.appendingPathComponent("Fixtures/png-rows/\(name)"))
      for round in 0..<60 {
        var bytes = original
        for _ in 0..<(1 + Int(generator.next() % 3)) {
          let at = 8 + Int(generator.next() % UInt64(bytes.count - 8))
          bytes[at] = generator.next() % 2 == 0 ? UInt8(truncatingIfNeeded: generator.next()) : bytes[at] ^ 0x10
        }
        Self.makeCRCsRight(&bytes)
        await Task.yield()
        problems += try Self.disagreements(
          bytes, name: "\(name) damaged #\(round)", seed: generator.next(), formats: [.source])
      }
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// Recomputes the CRC of every whole chunk (stopping at a length that runs past the end).
  static func makeCRCsRight(_ bytes: inout [UInt8]) {
    var at = 8
    while at + 12 <= bytes.count {
      let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
      guard length <= bytes.count - at - 12 else { return }
      let crc = CRC32.of(bytes[at + 4..<at + 8 + length])
      for i in 0..<4 { bytes[at + 8 + length + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
      at += 12 + length
    }
  }
}

/// The CRC-32 of PNG chunks (ISO 3309, as zlib computes it).
enum CRC32 {
  static let table: [UInt32] = (0..<256).map { index in
    var value = UInt32(index)
    for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
    return value
  }

  static func of(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    ~bytes.reduce(~UInt32(0)) { table[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
  }
}
