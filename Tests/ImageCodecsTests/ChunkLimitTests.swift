import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// Issue 14.1: a PNG chunk header claiming more than `maxChunkBytes` is a limit error before libpng
/// allocates anything, whatever the chunk type; chunks imgfetch never uses are skipped unread.
@Suite(.timeLimit(.minutes(30))) struct ChunkLimitTests {
  static let cases: [(String, UInt32)] = ChunkBombs.ancillaryTypes.flatMap { type in
    ChunkBombs.lengths.map { (type, $0) }
  }

  static func expectLimit(_ type: String, _ length: UInt32, _ body: () throws(DecodeError) -> Void) {
    let clock = ContinuousClock()
    let start = clock.now
    let error = #expect(throws: DecodeError.self, "\(type)") { try body() }
    // A hang guard for a loaded CI machine: a refusal takes microseconds (the old code about a second).
    #expect(clock.now - start < .seconds(30), "\(type) took \(clock.now - start)")
    #expect(error?.kind == .limitExceeded, "\(type): \(String(describing: error))")
    #expect(
      error?.message == "PNG chunk \(type) is \(length) bytes, over the 8000000-byte chunk limit",
      "\(type): \(String(describing: error))")
  }

  @Test func everyAncillaryChunkOverTheLimitIsALimitErrorForDecodeAndProbe() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    for (type, length) in Self.cases {
      let bytes = ChunkBombs.file(type, claimedLength: length)
      #expect(bytes.count == 41)
      let path = scratch.appendingPathComponent("\(type)-\(length).png").path
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      Self.expectLimit(type, length) { () throws(DecodeError) in _ = try ImageDecoder.decode(bytes) }
      Self.expectLimit(type, length) { () throws(DecodeError) in _ = try ImageDecoder.decode(contentsOf: path) }
      Self.expectLimit(type, length) { () throws(DecodeError) in _ = try ImageDecoder.probe(bytes) }
      Self.expectLimit(type, length) { () throws(DecodeError) in _ = try ImageDecoder.probe(contentsOf: path) }
    }
  }

  /// A valid 2x2 PNG with one ancillary chunk of `size` bytes before the pixels.
  static func pngWithChunk(_ type: String, size: Int) -> [UInt8] {
    var png = PNGBuilder()
    png.header(width: 2, height: 2)
    png.chunk(type, [UInt8](repeating: 0x41, count: size))
    png.pixels([[1, 2], [3, 4]])
    return png.bytes
  }

  @Test(arguments: ["tEXt", "sCAL", "sPLT", "prVt", "iCCP"])
  func theLimitIsTheChunkLengthExactly(_ type: String) throws {
    let options = DecodeOptions(limits: DecodeLimits(maxChunkBytes: 1000))
    // At the limit: the chunk is read (or skipped) and, malformed or not, only ancillary; the pixels stand.
    let image = try ImageDecoder.decode(Self.pngWithChunk(type, size: 1000), options: options)
    #expect(image.bytes == [1, 2, 3, 4])
    let error = #expect(throws: DecodeError.self) {
      try ImageDecoder.decode(Self.pngWithChunk(type, size: 1001), options: options)
    }
    #expect(error?.kind == .limitExceeded)
    #expect(error?.message == "PNG chunk \(type) is 1001 bytes, over the 1000-byte chunk limit")
  }

  @Test func largeUnusedChunksUnderTheLimitAreSkippedAndThePixelsDecode() throws {
    for type in ["sCAL", "pCAL", "sPLT", "hIST", "tIME", "prVt"] {
      let image = try ImageDecoder.decode(Self.pngWithChunk(type, size: 4_000_000))
      #expect(image.bytes == [1, 2, 3, 4], "\(type)")
    }
  }

  @Test func aLongIDATIsNotAnAncillaryChunk() throws {
    // Critical chunks are not limited by maxChunkBytes: libpng streams IDAT instead of allocating it.
    var png = PNGBuilder()
    png.header(width: 2, height: 2)
    png.pixels([[9, 8], [7, 6]])
    let options = DecodeOptions(limits: DecodeLimits(maxChunkBytes: 4))
    #expect(try ImageDecoder.decode(png.bytes, options: options).bytes == [9, 8, 7, 6])
  }
}

/// Issue 11.12 / 13.9: a libpng error's kind comes from the decoder's state, not from message text,
/// and nothing from one check sticks to a later, unrelated failure.
@Suite(.timeLimit(.minutes(30))) struct PNGErrorKindTests {
  @Test func anIHDROverTheSizeLimitsIsALimitErrorWithTheSameMessageAsJPEG() throws {
    var png = PNGBuilder()
    png.header(width: 70_000, height: 1)
    png.pixels([[0]])
    let error = #expect(throws: DecodeError.self) { try ImageDecoder.probe(png.bytes) }
    #expect(error?.kind == .limitExceeded)
    #expect(error?.message == "image is 70000x1, larger than the 65500x65500 limit")
    var tall = PNGBuilder()
    tall.header(width: 20_000, height: 20_000)
    let pixels = #expect(throws: DecodeError.self) { try ImageDecoder.probe(tall.bytes) }
    #expect(pixels?.kind == .limitExceeded)
    #expect(pixels?.message == "image is 20000x20000 (400000000 pixels), over the 100000000-pixel limit")
  }

  @Test func damageAfterAWarningIsReportedAsTheDamage() throws {
    // A broken ancillary chunk (a warning, the chunk dropped), then a damaged IDAT: corrupt, not a limit.
    var png = PNGBuilder()
    png.header(width: 2, height: 2)
    png.chunk("tEXt", Array("Comment\0hello".utf8), corruptCRC: true)
    png.chunk("IDAT", [0x78, 0x01, 0xff, 0xff, 0xff, 0xff])
    png.chunk("IEND", [])
    let error = #expect(throws: DecodeError.self) { try ImageDecoder.decode(png.bytes) }
    #expect(error?.kind == .corrupt)
    // The same file cut inside the IDAT: truncated.
    let cut = #expect(throws: DecodeError.self) { try ImageDecoder.decode(Array(png.bytes.prefix(60))) }
    #expect(cut?.kind == .truncated)
  }

  @Test func aZeroWidthIsCorruptNotALimit() throws {
    var png = PNGBuilder()
    png.header(width: 0, height: 5)
    png.pixels([[0]])
    let error = #expect(throws: DecodeError.self) { try ImageDecoder.probe(png.bytes) }
    #expect(error?.kind == .corrupt)
  }
}
