import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// WebP decoding held to libwebp (issue 31): every file of libwebp's test vectors
/// (`Fixtures/formats/webp`) and of the project's own WebP files (`Fixtures/formats/webp-made`) gets
/// dwebp's verdict, and its RGBA pixels dwebp's (`dwebp.tsv`, made by `scripts/webp-references`,
/// which checks dwebp against upstream's md5 table), from memory, from a file, validated and
/// streamed in random pieces. Animations (which dwebp does not decode): every frame must decode, the
/// first is the image; the frame limit, the pixel limit, the EXIF orientation, the ICC profile, the
/// output layouts and libwebp's scaled output.
@Suite(.timeLimit(.minutes(30))) struct WebPReferenceTests {
  struct Row: Sendable, CustomTestStringConvertible {
    let file: String
    let verdict: String
    let width: Int
    let height: Int
    let sha256: String
    var testDescription: String { file }
    var path: String { Fixtures.root.appendingPathComponent("Fixtures/formats/\(file)").path }
  }

  static let formats = Fixtures.root.appendingPathComponent("Fixtures/formats")

  static let table: [Row] = {
    let text = (try? String(contentsOf: formats.appendingPathComponent("webp/dwebp.tsv"), encoding: .utf8)) ?? ""
    return text.split(separator: "\n").dropFirst(2).map { line in
      let field = line.split(separator: "\t").map(String.init)
      return Row(
        file: field[0], verdict: field[1], width: Int(field[2]) ?? 0, height: Int(field[3]) ?? 0, sha256: field[4])
    }
  }()

  static func path(_ file: String) -> String { formats.appendingPathComponent(file).path }
  static func bytes(_ file: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(file)))) }
  static let rgba = DecodeOptions(pixelFormat: .rgba8)

  /// Every path's outcome on one file, labelled.
  static func outcomes(_ row: Row, options: DecodeOptions = rgba) throws -> [(String, Result<Image, DecodeError>)] {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: row.path)))
    var outcomes: [(String, Result<Image, DecodeError>)] = [
      ("memory", StreamingDecoderTests.oneCall(bytes, options: options)),
      (
        "file",
        Result { () throws(DecodeError) in try ImageDecoder.decode(contentsOf: row.path, options: options) }
      ),
    ]
    for seed: UInt64 in [1, 2, 3] {
      let maxChunk = [1, 300, 4096][Int(seed - 1)]
      // One-byte pieces of a large file would take minutes in a debug build.
      let pieces = bytes.count > 64 << 10 ? max(maxChunk, bytes.count / 200) : maxChunk
      outcomes.append(
        ("streamed (seed \(seed))", StreamingDecoderTests.stream(bytes, options: options, seed: seed, maxChunk: pieces)))
    }
    return outcomes
  }

  @Test func theTableCoversEveryFile() throws {
    let listed = Set(Self.table.map(\.file))
    for folder in ["webp", "webp-made"] {
      let names = try FileManager.default.contentsOfDirectory(atPath: Self.formats.appendingPathComponent(folder).path)
      for name in names where name.hasSuffix(".webp") {
        #expect(listed.contains("\(folder)/\(name)"), "\(folder)/\(name) is not in dwebp.tsv")
      }
    }
    #expect(Self.table.count == 141)
    #expect(Self.table.filter { $0.verdict == "decodes" }.count == 134)
  }

  @Test(arguments: table.filter { $0.verdict != "animation" })
  func everyPathHasDwebpsVerdictAndPixels(_ row: Row) throws {
    for (label, outcome) in try Self.outcomes(row) {
      switch (row.verdict, outcome) {
      case ("decodes", .success(let image)):
        #expect(image.width == row.width && image.height == row.height, "\(label)")
        #expect(SHA256.hex(image.bytes) == row.sha256, "\(label): other pixels than dwebp's")
      case ("refused", .failure(let error)):
        #expect([.truncated, .corrupt].contains(error.kind), "\(label): \(error)")
        #expect(error.format == .webp && !error.message.isEmpty && !error.message.contains("\n"))
      default:
        Issue.record("\(row.file) \(label): \(outcome), dwebp: \(row.verdict)")
      }
    }
    let validated = Result { () throws(DecodeError) in try ImageDecoder.validate(contentsOf: row.path) }
    let accepted = (try? validated.get()) != nil
    #expect(accepted == (row.verdict == "decodes"), "validated: \(validated)")
  }

  /// The same pixels through libwebp's one-call WebPDecode (`WebPDecoding`), not the incremental
  /// decoder imgfetch's paths use.
  @Test func theIncrementalDecoderGivesWebPDecodesPixels() throws {
    for row in Self.table where row.verdict == "decodes" && row.width * row.height < 4_000_000 {
      let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: row.path)))
      let once = try #require(WebPDecoding.decode(bytes), "\(row.file)")
      #expect(try ImageDecoder.decode(bytes, options: Self.rgba).bytes == once.bytes, "\(row.file)")
    }
  }

  @Test func errorsSayWhatIsWrongInOneLine() throws {
    let cases: [(String, DecodeError.Kind, String)] = [
      ("webp-made/truncated-half.webp", .truncated, "WebP file ends early (2464 of the 4928 bytes its RIFF header says)"),
      (
        "webp-made/riff-longer-than-file.webp", .truncated,
        "WebP file ends early (4928 of the 5028 bytes its RIFF header says)"
      ),
      ("webp-made/lossless-damaged.webp", .corrupt, "WebP image data is corrupt (libwebp: bitstream error)"),
      ("webp-made/anim-bad-frame.webp", .corrupt, "WebP animation frame 2 of 3 does not decode"),
      ("webp-made/anim-truncated.webp", .truncated, "WebP file ends early (606 of the 910 bytes its RIFF header says)"),
    ]
    for (file, kind, message) in cases {
      let row = Row(file: file, verdict: "refused", width: 0, height: 0, sha256: "-")
      for (label, outcome) in try Self.outcomes(row) {
        guard case .failure(let error) = outcome else {
          Issue.record("\(file) \(label): accepted")
          continue
        }
        #expect(error.kind == kind && error.message == message, "\(file) \(label): \(error)")
        #expect(error.summary == (kind == .truncated ? "truncated WebP" : "corrupt WebP"))
      }
      #expect(throws: DecodeError.self) { try ImageDecoder.validate(contentsOf: Self.path(file)) }
    }
  }

  /// FuzzWebP's finding (Fixtures/regressions/FuzzWebP): a stream must not take libwebp's answer
  /// from the VP8X chunk alone for the header; every path gives the same reason, the header's.
  @Test func theHeaderIsReadWhenLibwebpsAnswerIsFinal() throws {
    let path = Fixtures.root.appendingPathComponent(
      "Fixtures/regressions/Verdicts/webp-vp8x-header-before-the-bitstream-header.webp"
    ).path
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    for maxChunk in [1, 5, 85, 700, 4096] {
      let streamed = StreamingDecoderTests.stream(bytes, seed: UInt64(maxChunk), maxChunk: maxChunk)
      guard case .failure(let error) = streamed else {
        Issue.record("pieces of up to \(maxChunk): accepted")
        continue
      }
      #expect(error.kind == .corrupt && error.message == "WebP header is corrupt (libwebp: bitstream error)", "\(error)")
    }
    #expect(throws: DecodeError.self) { try ImageDecoder.decode(bytes) }
  }

  // MARK: - Animations

  @Test func anAnimationIsItsFirstFrameOnceEveryFrameDecodes() throws {
    let file = "webp-made/anim-3-frames.webp"
    let header = try ImageDecoder.probe(contentsOf: Self.path(file))
    #expect(header.format == .webp && header.frameCount == 3 && header.width == 32 && header.height == 32)
    #expect(header.hasAlpha && !header.shrinksOnLoad)
    // The first frame alone, as a still image (dwebp's pixels: everyPathHasDwebpsVerdictAndPixels).
    let first = try ImageDecoder.decode(contentsOf: Self.path("webp-made/anim-3-frames-frame-1.webp"), options: Self.rgba)
    let row = Row(file: file, verdict: "animation", width: 32, height: 32, sha256: "")
    for (label, outcome) in try Self.outcomes(row) {
      #expect((try? outcome.get())?.bytes == first.bytes, "\(label): \(outcome)")
    }
    // Its lossy sibling decodes too (the pixels are lossy: only the verdict and the size).
    let lossy = try ImageDecoder.decode(contentsOf: Self.path("webp-made/anim-lossy-2-frames.webp"))
    #expect(lossy.width == 32 && lossy.height == 32)
    #expect(try ImageDecoder.probe(contentsOf: Self.path("webp-made/anim-lossy-2-frames.webp")).frameCount == 2)
  }

  @Test func framesOverTheLimitAreRefusedBeforeDecoding() throws {
    let options = DecodeOptions(pixelFormat: .rgba8, limits: DecodeLimits(maxFrames: 2))
    let row = Row(file: "webp-made/anim-3-frames.webp", verdict: "animation", width: 32, height: 32, sha256: "")
    for (label, outcome) in try Self.outcomes(row, options: options) {
      guard case .failure(let error) = outcome else {
        Issue.record("\(label): accepted over the frame limit")
        continue
      }
      #expect(error.kind == .limitExceeded, "\(label): \(error)")
      #expect(error.message == "animation has more frames than the 2-frame limit", "\(error)")
    }
    #expect(throws: DecodeError.self) {
      try ImageDecoder.probe(contentsOf: Self.path(row.file), limits: DecodeLimits(maxFrames: 2))
    }
    #expect(try ImageDecoder.probe(contentsOf: Self.path(row.file), limits: DecodeLimits(maxFrames: 3)).frameCount == 3)
  }

  @Test func sizesOverThePixelLimitAreRefusedFromTheHeader() throws {
    let limits = DecodeLimits(maxPixels: 1000)
    for file in ["webp/test.webp", "webp-made/anim-3-frames.webp", "webp/lossless1.webp"] {
      do {
        _ = try ImageDecoder.probe(Self.bytes(file), limits: limits)
        Issue.record("\(file): accepted over the pixel limit")
      } catch let error as DecodeError {
        #expect(error.kind == .limitExceeded && error.message.contains("over the 1000-pixel limit"), "\(error)")
      }
      let streamed = StreamingDecoderTests.stream(try Self.bytes(file), options: DecodeOptions(limits: limits))
      #expect((try? streamed.get()) == nil)
      if case .failure(let error) = streamed { #expect(error.kind == .limitExceeded) }
    }
  }

  // MARK: - What a person sees

  @Test func theEXIFOrientationIsRead() throws {
    let file = "webp-made/exif-orientation-6.webp"
    let header = try ImageDecoder.probe(contentsOf: Self.path(file))
    #expect(header.orientation == .right && header.orientedWidth == 1200 && header.orientedHeight == 1800)
    let image = try ImageDecoder.decode(contentsOf: Self.path(file))
    #expect(image.orientation == .right && image.width == 1800)
    // Streamed, the header (with the orientation, from the EXIF chunk after the image data) comes
    // before any row.
    let decoder = StreamingDecoder()
    let bytes = try Self.bytes(file)
    try decoder.append(Array(bytes[..<(bytes.count - 100)]))
    #expect(decoder.header == nil)
    try decoder.append(Array(bytes[(bytes.count - 100)...]))
    try decoder.finish()
    #expect(decoder.header?.orientation == .right)
  }

  @Test func theICCProfileIsReadAndConvertedToSRGB() throws {
    let file = "webp-made/display-p3.webp"
    let header = try ImageDecoder.probe(contentsOf: Self.path(file))
    #expect(header.hasICCProfile && header.colorSpace.origin == .iccProfile && !header.colorSpace.isSRGB)
    let stored = try ImageDecoder.decode(contentsOf: Self.path(file))
    #expect(stored.colorSpace.origin == .iccProfile)
    let converted = try ImageDecoder.decode(contentsOf: Self.path(file), options: DecodeOptions(colorSpace: .sRGB))
    #expect(converted.colorSpace.isSRGB && converted.bytes != stored.bytes)
    // The same conversion as the JPEG the file was made from (lossy both ways: close, not equal).
    let jpeg = try ImageDecoder.decode(
      contentsOf: Fixtures.root.appendingPathComponent("Fixtures/color/display-p3.jpg").path,
      options: DecodeOptions(colorSpace: .sRGB))
    let difference = zip(converted.bytes, jpeg.bytes).map { abs(Int($0) - Int($1)) }.reduce(0, +)
    #expect(Double(difference) / Double(jpeg.bytes.count) < 4)
  }

  @Test func everyLayoutComesFromTheSameDecode() throws {
    for file in ["webp/test.webp", "webp/lossy_alpha1.webp", "webp-made/anim-3-frames.webp"] {
      let bytes = try Self.bytes(file)
      let rgba = try ImageDecoder.decode(bytes, options: Self.rgba).bytes
      let rgb = try ImageDecoder.decode(bytes, options: DecodeOptions(pixelFormat: .rgb8))
      #expect(rgb.pixelFormat == .rgb8)
      #expect(rgb.bytes == stride(from: 0, to: rgba.count, by: 4).flatMap { rgba[$0..<$0 + 3] }, "\(file)")
      let gray = try ImageDecoder.decode(bytes, options: DecodeOptions(pixelFormat: .gray8))
      let luma = stride(from: 0, to: rgba.count, by: 4).map { (i: Int) -> UInt8 in
        let (r, g, b) = (UInt32(rgba[i]), UInt32(rgba[i + 1]), UInt32(rgba[i + 2]))
        let weighted: UInt32 = r * 19595 + g * 38470 + b * 7471 + 32768
        return UInt8(weighted >> 16)
      }
      #expect(gray.pixelFormat == .gray8 && gray.bytes == luma, "\(file)")
      let source = try ImageDecoder.decode(bytes)
      #expect(source.pixelFormat == (try ImageDecoder.probe(bytes).hasAlpha ? .rgba8 : .rgb8))
    }
  }

  /// libwebp's scaled output: an opaque still image decodes at eighths of its size on every path
  /// (with the same pixels), one with alpha or animated at full size.
  @Test func onlyOpaqueStillImagesShrinkOnLoad() throws {
    let bytes = try Self.bytes("webp/test.webp")
    #expect(try ImageDecoder.probe(bytes).shrinksOnLoad)
    for scale in [JPEGScale.eighth, .quarter, .half] {
      let options = DecodeOptions(jpegScale: scale)
      let once = try ImageDecoder.decode(bytes, options: options)
      #expect(once.width == scale.scaled(128) && once.height == scale.scaled(128))
      let streamed = try StreamingDecoderTests.stream(bytes, options: options, seed: 5, maxChunk: 200).get()
      #expect(streamed.bytes == once.bytes)
      let file = try ImageDecoder.decode(contentsOf: Self.path("webp/test.webp"), options: options)
      #expect(file.bytes == once.bytes)
    }
    for file in ["webp/lossy_alpha1.webp", "webp-made/anim-3-frames.webp", "webp-made/alpha-256.webp"] {
      let header = try ImageDecoder.probe(Self.bytes(file))
      #expect(!header.shrinksOnLoad)
      let image = try ImageDecoder.decode(Self.bytes(file), options: DecodeOptions(jpegScale: .eighth))
      #expect(image.width == header.width && image.height == header.height, "\(file)")
    }
  }

  @Test func theSignatureNamesWebP() throws {
    #expect(ImageFormat(sniffing: try Self.bytes("webp/test.webp")) == .webp)
    #expect(ImageFormat(sniffing: Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVE".utf8)) == nil)
    let wave = Array("RIFF\u{4}\u{0}\u{0}\u{0}WAVEfmt ".utf8)
    do throws(DecodeError) {
      _ = try ImageDecoder.decode(wave)
      Issue.record("a WAVE file decoded")
    } catch {
      #expect(error.kind == .notAnImage && error.message == "not a PNG, JPEG, WebP, GIF, HEIC or AVIF file (unrecognised signature)")
    }
  }
}
