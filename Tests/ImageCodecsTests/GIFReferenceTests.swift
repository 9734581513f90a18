import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// GIF decoding held to an independent decoder (issue 31): every file of Pillow's GIF test images
/// (`Fixtures/formats/gif`) gets the verdict of `pillow.tsv` (made by `scripts/gif-references`:
/// Pillow's, except where the README says imgfetch decides otherwise) and its first frame's RGBA
/// pixels Pillow's, from memory, from a file, validated and streamed in random pieces. Every
/// prefix of a file is refused as truncated on every path; the frame and pixel limits; the layouts.
@Suite(.timeLimit(.minutes(20))) struct GIFReferenceTests {
  struct Row: Sendable, CustomTestStringConvertible {
    let file: String
    let verdict: String
    let width: Int
    let height: Int
    let frames: Int
    let sha256: String
    var testDescription: String { file }
    var path: String { GIFReferenceTests.path(file) }
  }

  static let formats = Fixtures.root.appendingPathComponent("Fixtures/formats")

  static let table: [Row] = {
    let text = (try? String(contentsOf: formats.appendingPathComponent("gif/pillow.tsv"), encoding: .utf8)) ?? ""
    return text.split(separator: "\n").dropFirst(2).map { line in
      let field = line.split(separator: "\t").map(String.init)
      return Row(
        file: field[0], verdict: field[2], width: Int(field[3]) ?? 0, height: Int(field[4]) ?? 0,
        frames: Int(field[5]) ?? 0, sha256: field[6])
    }
  }()

  static func path(_ file: String) -> String { formats.appendingPathComponent(file).path }
  static func bytes(_ file: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(file))))
  }
  static let rgba = DecodeOptions(pixelFormat: .rgba8)

  /// Every path's outcome on bytes (and the file they are, when given), labelled.
  static func outcomes(_ bytes: [UInt8], file: String?, options: DecodeOptions = rgba)
    -> [(String, Result<Image, DecodeError>)]
  {
    var outcomes: [(String, Result<Image, DecodeError>)] = [
      ("memory", StreamingDecoderTests.oneCall(bytes, options: options))
    ]
    if let file {
      outcomes.append(
        ("file", Result { () throws(DecodeError) in try ImageDecoder.decode(contentsOf: file, options: options) }))
    }
    for seed: UInt64 in [1, 2, 3] {
      let maxChunk = [1, 300, 4096][Int(seed - 1)]
      let pieces = bytes.count > 64 << 10 ? max(maxChunk, bytes.count / 200) : maxChunk
      outcomes.append(
        ("streamed (seed \(seed))", StreamingDecoderTests.stream(bytes, options: options, seed: seed, maxChunk: pieces))
      )
    }
    return outcomes
  }

  @Test func theTableCoversEveryFile() throws {
    let names = try FileManager.default.contentsOfDirectory(atPath: Self.formats.appendingPathComponent("gif").path)
    let listed = Set(Self.table.map(\.file))
    for name in names where name.hasSuffix(".gif") { #expect(listed.contains("gif/\(name)"), "\(name)") }
    #expect(Self.table.count == 38)
    #expect(Self.table.filter { $0.verdict == "decodes" }.count == 34)
  }

  @Test(arguments: table)
  func everyPathHasTheTablesVerdictAndPixels(_ row: Row) throws {
    for (label, outcome) in Self.outcomes(try Self.bytes(row.file), file: row.path) {
      switch outcome {
      case .success(let image) where row.verdict == "decodes":
        #expect(image.width == row.width && image.height == row.height, "\(label)")
        #expect(SHA256.hex(image.bytes) == row.sha256, "\(label): other pixels than Pillow's")
      case .failure(let error) where error.kind.rawValue == row.verdict:
        #expect(error.format == .gif && !error.message.isEmpty && !error.message.contains("\n"), "\(error)")
      default:
        Issue.record("\(row.file) \(label): \(outcome), the table: \(row.verdict)")
      }
    }
    let validated = Result { () throws(DecodeError) in try ImageDecoder.validate(contentsOf: row.path) }
    #expect(((try? validated.get()) != nil) == (row.verdict == "decodes"), "validated: \(validated)")
    if row.verdict == "decodes" {
      let header = try ImageDecoder.probe(contentsOf: row.path)
      #expect(header.format == .gif && header.frameCount == row.frames && header.bitDepth == 8)
      #expect(header.width == row.width && header.height == row.height && !header.shrinksOnLoad)
    }
  }

  @Test func errorsSayWhatIsWrongInOneLine() throws {
    let cases: [(String, DecodeError.Kind, String)] = [
      ("gif/decompression_bomb.gif", .limitExceeded, "frame 1 is 65535x1321, larger than the 65500x65500 limit"),
      ("gif/zero_width.gif", .corrupt, "frame 1 has a zero dimension (0x1321)"),
      ("gif/issue_2811.gif", .corrupt, "frame 1: its LZW code size is over 8 bits"),
      (
        "gif/test_extents_transparency.gif", .corrupt,
        "the block after frame 1 is not an image, an extension or the trailer"
      ),
    ]
    for (file, kind, message) in cases {
      for (label, outcome) in Self.outcomes(try Self.bytes(file), file: Self.path(file)) {
        guard case .failure(let error) = outcome else {
          Issue.record("\(file) \(label): accepted")
          continue
        }
        #expect(error.kind == kind && error.message == message, "\(file) \(label): \(error)")
      }
    }
  }

  /// Every prefix of two files (a still interlaced one, an animation) is refused as truncated, never
  /// accepted, with the same reason on every path.
  @Test(arguments: ["gif/first_frame_transparency.gif", "gif/dispose_bgnd.gif"])
  func everyPrefixIsTruncatedOnEveryPath(_ file: String) throws {
    let whole = try Self.bytes(file)
    let scratch = NSTemporaryDirectory() + "gif-prefix-\(getpid())-\(file.hashValue).gif"
    defer { unlink(scratch) }
    for length in 1..<whole.count {
      let prefix = Array(whole[..<length])
      try Data(prefix).write(to: URL(fileURLWithPath: scratch))
      var reasons: Set<String> = []
      for (label, outcome) in Self.outcomes(prefix, file: scratch) {
        guard case .failure(let error) = outcome else {
          Issue.record("\(file): \(length) of \(whole.count) bytes accepted (\(label))")
          continue
        }
        // Fewer than 6 bytes are not yet a GIF signature: an empty or unrecognised file.
        #expect(error.kind == (length < 6 ? .notAnImage : .truncated), "\(length) bytes \(label): \(error)")
        reasons.insert(error.message)
      }
      #expect(reasons.count == 1, "\(length) bytes: \(reasons)")
      #expect(throws: DecodeError.self) { try ImageDecoder.validate(contentsOf: scratch) }
    }
  }

  @Test func framesOverTheLimitAreRefusedBeforeDecoding() throws {
    let file = "gif/chi.gif"  // 31 frames
    let options = DecodeOptions(pixelFormat: .rgba8, limits: DecodeLimits(maxFrames: 30))
    for (label, outcome) in Self.outcomes(try Self.bytes(file), file: Self.path(file), options: options) {
      guard case .failure(let error) = outcome else {
        Issue.record("\(label): accepted over the frame limit")
        continue
      }
      #expect(error.kind == .limitExceeded, "\(label): \(error)")
      #expect(error.message == "animation has more frames than the 30-frame limit", "\(error)")
    }
    #expect(throws: DecodeError.self) {
      try ImageDecoder.probe(contentsOf: Self.path(file), limits: DecodeLimits(maxFrames: 30))
    }
    #expect(try ImageDecoder.probe(contentsOf: Self.path(file), limits: DecodeLimits(maxFrames: 31)).frameCount == 31)
  }

  /// The pixel limit holds for the screen and for every frame, each checked as its descriptor is
  /// read: a later frame larger than the screen (made here) is refused before it is decoded.
  @Test func thePixelLimitHoldsForTheScreenAndEveryFrame() throws {
    let hopper = try Self.bytes("gif/hopper.gif")
    let big = GIFMaker.Frame(width: 40, height: 40, pixels: [UInt8](repeating: 7, count: 1600))
    let small = GIFMaker.Frame(width: 2, height: 2, pixels: [1, 2, 3, 4])
    let later = GIFMaker.file(width: 2, height: 2, frames: [small, big])
    for (bytes, message) in [
      (hopper, "the logical screen is 128x128 (16384 pixels), over the 1000-pixel limit"),
      (later, "frame 2 is 40x40 (1600 pixels), over the 1000-pixel limit"),
    ] {
      let options = DecodeOptions(limits: DecodeLimits(maxPixels: 1000))
      for (label, outcome) in Self.outcomes(bytes, file: nil, options: options) {
        guard case .failure(let error) = outcome else {
          Issue.record("\(label): accepted over the pixel limit")
          continue
        }
        #expect(error.kind == .limitExceeded && error.message == message, "\(label): \(error)")
      }
    }
    // Within the limits, the later frame decodes (it is clipped: the image is the first frame).
    let image = try ImageDecoder.decode(later, options: Self.rgba)
    #expect(image.width == 2 && image.bytes == [1, 2, 3, 4].flatMap { GIFMaker.color($0) + [255] })
  }

  /// Interlaced rows land in their rows; a first frame larger than the screen grows the image, one
  /// smaller leaves transparent black around it; the transparent index keeps its colour, alpha 0.
  @Test func framesArePlacedAsBrowsersShowThem() throws {
    let rows: [[UInt8]] = (0..<10).map { y in [UInt8](repeating: UInt8(10 + y), count: 3) }
    let stored = [0, 8, 4, 2, 6, 1, 3, 5, 7, 9].flatMap { rows[$0] }  // the four passes of 10 rows
    let interlaced = GIFMaker.file(
      width: 3, height: 10, frames: [GIFMaker.Frame(width: 3, height: 10, pixels: stored, interlaced: true)])
    for (label, outcome) in Self.outcomes(interlaced, file: nil) {
      let expected: [UInt8] = rows.flatMap { row in
        row.flatMap { (index: UInt8) -> [UInt8] in GIFMaker.color(Int(index)) + [255] }
      }
      #expect((try? outcome.get())?.bytes == expected, "\(label)")
    }
    let grown = GIFMaker.file(
      width: 1, height: 1,
      frames: [GIFMaker.Frame(left: 1, top: 0, width: 1, height: 2, pixels: [5, 6], transparent: 6)])
    let header = try ImageDecoder.probe(grown)
    #expect(header.width == 2 && header.height == 2 && header.hasAlpha)
    let clear: [UInt8] = [0, 0, 0, 0]
    let expected = clear + GIFMaker.color(5) + [255] + clear + GIFMaker.color(6) + [0]
    for (label, outcome) in Self.outcomes(grown, file: nil) {
      #expect((try? outcome.get())?.bytes == expected, "\(label)")
    }
    #expect(try ImageDecoder.decode(grown).pixelFormat == .rgba8)
  }

  /// A file that ends after its last frame without the trailer is cut; a file with no frame, or a
  /// frame of zero width, is corrupt.
  @Test func whatIsMissingIsRefused() throws {
    let frame = GIFMaker.Frame(width: 2, height: 1, pixels: [1, 2])
    let cases: [([UInt8], DecodeError.Kind, String)] = [
      (
        GIFMaker.file(width: 2, height: 1, frames: [frame], trailer: false), .truncated,
        "the file ends before its trailer (after frame 1)"
      ),
      (
        GIFMaker.file(width: 2, height: 1, frames: []), .corrupt,
        "the GIF has no image (its trailer comes before any frame)"
      ),
      (
        GIFMaker.file(width: 2, height: 1, frames: [GIFMaker.Frame(width: 0, height: 1, pixels: [])]), .corrupt,
        "frame 1 has a zero dimension (0x1)"
      ),
    ]
    for (bytes, kind, message) in cases {
      for (label, outcome) in Self.outcomes(bytes, file: nil) {
        guard case .failure(let error) = outcome else {
          Issue.record("\(message) \(label): accepted")
          continue
        }
        #expect(error.kind == kind && error.message == message, "\(label): \(error)")
      }
    }
  }

  @Test func everyLayoutComesFromTheSameDecode() throws {
    for file in ["gif/hopper.gif", "gif/first_frame_transparency.gif", "gif/chi.gif", "gif/no_palette.gif"] {
      let bytes = try Self.bytes(file)
      let rgba = try ImageDecoder.decode(bytes, options: Self.rgba).bytes
      let rgb = try ImageDecoder.decode(bytes, options: DecodeOptions(pixelFormat: .rgb8))
      #expect(rgb.pixelFormat == .rgb8)
      #expect(rgb.bytes == stride(from: 0, to: rgba.count, by: 4).flatMap { rgba[$0..<$0 + 3] }, "\(file)")
      let gray = try ImageDecoder.decode(bytes, options: DecodeOptions(pixelFormat: .gray8))
      let luma = stride(from: 0, to: rgba.count, by: 4).map { (i: Int) -> UInt8 in
        let (r, g, b) = (UInt32(rgba[i]), UInt32(rgba[i + 1]), UInt32(rgba[i + 2]))
        return UInt8((r * 19595 + g * 38470 + b * 7471 + 32768) >> 16)
      }
      #expect(gray.pixelFormat == .gray8 && gray.bytes == luma, "\(file)")
      let header = try ImageDecoder.probe(bytes)
      let source = try ImageDecoder.decode(bytes)
      #expect(source.pixelFormat == (header.hasAlpha ? .rgba8 : .rgb8), "\(file)")
      #expect(header.colorType == .palette && header.colorSpace.isSRGB)
    }
    // A first frame short of the screen: transparent outside it, so the image has alpha.
    let partial = try ImageDecoder.probe(Self.bytes("gif/first_frame_transparency.gif"))
    #expect(partial.hasAlpha && partial.isInterlaced && partial.width == 75)
    #expect(try !ImageDecoder.probe(Self.bytes("gif/hopper.gif")).hasAlpha)
  }

  /// GIF87a and GIF89a name a GIF; "GIF88a" does not.
  @Test func theSignatureNamesGIF() throws {
    #expect(ImageFormat(sniffing: try Self.bytes("gif/hopper.gif")) == .gif)
    #expect(ImageFormat(sniffing: Array("GIF87a".utf8)) == .gif)
    #expect(ImageFormat(sniffing: Array("GIF88a\u{1}\u{0}\u{1}\u{0}\u{0}\u{0}".utf8)) == nil)
    #expect(ImageFormat.gif.description == "GIF" && ImageFormat.gif.fileExtension == "gif")
    let metadata = try ImageMetadata.read(contentsOf: Self.path("gif/hopper.gif"))
    #expect(metadata.format == .gif && metadata.isComplete)
    let cut = try Array(Self.bytes("gif/hopper.gif").dropLast())
    #expect(try !ImageMetadata.read(cut).isComplete)
  }
}
