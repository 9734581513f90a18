import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// Broken, truncated and hostile files are rejected with the right kind of error, never a crash,
/// never a half-decoded image.
@Suite(.timeLimit(.minutes(30))) struct InvalidInputTests {
  /// huge_iCCP_chunk.png claims a 1 GiB iCCP chunk in a 57-byte file: a limit error before libpng
  /// allocates (issue 14.1), no longer libpng's "truncated" after it allocated.
  /// invalid-prediction-shift.jpg is a lossless JPEG (SOF3) with a point transform of 12: libjpeg-turbo
  /// 2.x refuses every lossless JPEG as an unsupported process, 3.x decodes lossless JPEGs and refuses
  /// this one's parameters as corrupt (``LinkedLibraries``).
  static let expectedKinds: [(String, DecodeError.Kind)] = [
    ("badadler.png", .corrupt), ("badcrc.png", .corrupt), ("broken.png", .corrupt),
    ("derive-huffman-codes-overflow.jpg", .corrupt), ("empty.jpg", .notAnImage), ("huge_IDAT.png", .truncated),
    ("huge_iCCP_chunk.png", .limitExceeded), ("invalid-prediction-shift.jpg", LinkedLibraries.jpeg.choose(turbo2: .unsupported, turbo3: .corrupt)),
    ("max_size.jpg", .limitExceeded), ("missing-sof.jpg", .truncated), ("null_height.jpg", .corrupt),
    ("progressive-missing-dc.jpg", .corrupt), ("testorig12.jpg", .unsupported), ("truncated_image.png", .truncated),
    ("truncated_jpeg.jpg", .truncated), ("xc1n0g08.png", .corrupt), ("xc9n2c08.png", .corrupt),
    ("xcrn0g04.png", .notAnImage), ("xd0n2c08.png", .corrupt), ("xd9n2c08.png", .corrupt),
    ("xhdn0g08.png", .corrupt), ("xs1n0g01.png", .notAnImage), ("xs2n0g01.png", .notAnImage),
    ("xs7n0g01.png", .notAnImage),
  ]

  @Test func everyInvalidReferenceRowIsListed() throws {
    let invalid = Set(try ReferenceRow.load().filter { $0.expect == "invalid" }.map(\.file))
    #expect(invalid == Set(Self.expectedKinds.map(\.0)))
  }

  @Test(arguments: zip(expectedKinds.map(\.0), expectedKinds.map(\.1)))
  func invalidFileThrowsItsKind(_ name: String, _ kind: DecodeError.Kind) {
    let path = Fixtures.image(name)
    let error = #expect(throws: DecodeError.self) { try ImageDecoder.decode(contentsOf: path) }
    #expect(error?.kind == kind, "\(name): \(String(describing: error))")
    #expect(error?.path == path)
    #expect(error?.description.hasPrefix(path + ": ") == true)
  }

  @Test func unsupportedJPEGsSayWhy() {
    let twelveBit = #expect(throws: DecodeError.self) {
      try ImageDecoder.decode(contentsOf: Fixtures.image("testorig12.jpg"))
    }
    #expect(twelveBit?.description.contains("unsupported JPEG: Unsupported JPEG data precision 12") == true)
    let lossless = #expect(throws: DecodeError.self) {
      try ImageDecoder.decode(contentsOf: Fixtures.image("invalid-prediction-shift.jpg"))
    }
    let why = LinkedLibraries.jpeg.choose(
      turbo2: "unsupported JPEG: Unsupported JPEG process: SOF type 0xc3",
      turbo3: "corrupt JPEG: Invalid progressive/lossless parameters Ss=1 Se=0 Ah=0 Al=12")
    #expect(lossless?.description.contains(why) == true, "\(String(describing: lossless)) on \(LinkedLibraries.summary)")
  }

  @Test func everyTruncationOfAJPEGIsRejected() throws {
    let bytes = try Fixtures.bytes("testorig.jpg")
    for length in stride(from: 0, to: bytes.count - 2, by: 97) {
      #expect(throws: DecodeError.self, "cut at \(length)") { try ImageDecoder.decode(Array(bytes[..<length])) }
    }
  }

  @Test func everyTruncationOfAPNGIsRejected() throws {
    let bytes = try Fixtures.bytes("basn6a08.png")
    for length in 0..<(bytes.count - 12) {  // the last 12 bytes are IEND
      #expect(throws: DecodeError.self, "cut at \(length)") { try ImageDecoder.decode(Array(bytes[..<length])) }
    }
  }

  @Test func flippedBytesNeverCrash() throws {
    // Deterministic corruption of every region of a JPEG and a PNG: each decode either succeeds
    // with a full-size image or throws; none may crash, hang or print.
    for name in ["testorig.jpg", "jpg-progressive.jpg", "basi3p04.png", "basn6a16.png"] {
      let original = try Fixtures.bytes(name)
      var generator = SplitMix(seed: 42)
      for _ in 0..<150 {
        var damaged = original
        for _ in 0..<3 {
          let index = Int(generator.next() % UInt64(damaged.count))
          damaged[index] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
        }
        if let image = try? ImageDecoder.decode(damaged) {
          #expect(image.width > 0 && image.height > 0)
        }
      }
    }
  }

  @Test func lenientDecodeReturnsWhatWasThere() throws {
    let path = Fixtures.image("truncated_jpeg.jpg")
    let header = try ImageDecoder.probe(contentsOf: path)
    let image = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(strictness: .lenient))
    #expect(image.width == header.width && image.height == header.height)
  }

  @Test func notAnImageSaysSo() {
    let error = #expect(throws: DecodeError.self) { try ImageDecoder.decode(Array("<html>502</html>".utf8)) }
    #expect(error?.kind == .notAnImage)
    #expect(error?.format == nil)
  }

  @Test func missingFileIsAnIOError() {
    let error = #expect(throws: DecodeError.self) { try ImageDecoder.decode(contentsOf: "/nonexistent/x.png") }
    #expect(error?.kind == .io)
    #expect(error?.description == "/nonexistent/x.png: cannot read file: No such file or directory")
  }
}

/// A small deterministic random number generator for reproducible corruption.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
