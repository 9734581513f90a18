import FixtureSupport
import ImageCodecs
import Testing

/// The header probe reports what the file says without decoding pixels.
@Suite(.timeLimit(.minutes(30))) struct ProbeTests {
  @Test func interlacedPalettePNG() throws {
    let header = try ImageDecoder.probe(contentsOf: Fixtures.image("basi3p08.png"))
    #expect(header.format == .png)
    #expect(header.width == 32 && header.height == 32)
    #expect(header.colorType == .palette && header.bitDepth == 8)
    #expect(header.isInterlaced && !header.isProgressive)
    #expect(!header.hasAlpha)
  }

  @Test func transparencyFromTRNSCountsAsAlpha() throws {
    #expect(try ImageDecoder.probe(contentsOf: Fixtures.image("tbbn3p08.png")).hasAlpha)
    #expect(try ImageDecoder.probe(contentsOf: Fixtures.image("basn6a16.png")).bitDepth == 16)
  }

  @Test func progressiveJPEG() throws {
    let header = try ImageDecoder.probe(contentsOf: Fixtures.image("progressive.jpeg"))
    #expect(header.format == .jpeg && header.isProgressive)
    #expect(header.width == 450 && header.height == 300)
    #expect(header.colorType == .ycbcr && header.chromaSubsampling == "4:2:0")
  }

  @Test func subsamplingAndCodingAreReported() throws {
    #expect(try ImageDecoder.probe(contentsOf: Fixtures.image("iptc.jpg")).chromaSubsampling == "4:2:2")
    #expect(try ImageDecoder.probe(contentsOf: Fixtures.image("restarts.jpg")).chromaSubsampling == "4:4:4")
    #expect(try ImageDecoder.probe(contentsOf: Fixtures.image("testimgari.jpg")).isArithmeticCoded)
    #expect(try ImageDecoder.probe(contentsOf: Fixtures.image("jpg-gray.jpg")).colorType == .gray)
    #expect(try ImageDecoder.probe(contentsOf: Fixtures.image("jpg-cmyk-1.jpg")).colorType == .cmyk)
    #expect(try ImageDecoder.probe(contentsOf: Fixtures.image("pil_sample_cmyk.jpg")).colorType == .ycck)
  }

  @Test(arguments: 1...8)
  func exifOrientationIsRead(_ value: Int) throws {
    let name = value == 1 || value == 3 || value == 5 || value == 7 ? "Landscape_\(value).jpg" : "Portrait_\(value).jpg"
    let header = try ImageDecoder.probe(contentsOf: Fixtures.image(name))
    #expect(header.orientation.rawValue == value)
    let displayedWide = name.hasPrefix("Landscape")
    #expect((header.orientedWidth > header.orientedHeight) == displayedWide)
  }

  @Test func undefinedOrientationMeansUp() throws {
    #expect(try ImageDecoder.probe(contentsOf: Fixtures.image("Landscape_0.jpg")).orientation == .up)
  }

  @Test func iccProfileIsDetectedInJPEGAndPNG() throws {
    // Insert an APP2 ICC_PROFILE segment after SOI of a plain JPEG.
    var jpeg = try Fixtures.bytes("testorig.jpg")
    #expect(try ImageDecoder.probe(jpeg).hasICCProfile == false)
    let payload = Array("ICC_PROFILE".utf8) + [0, 1, 1] + [UInt8](repeating: 0, count: 128)
    let length = payload.count + 2
    jpeg.insert(contentsOf: [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload, at: 2)
    #expect(try ImageDecoder.probe(jpeg).hasICCProfile)
    #expect(try ImageDecoder.decode(jpeg) == ImageDecoder.decode(contentsOf: Fixtures.image("testorig.jpg")))
    let png = Fixtures.root.appendingPathComponent("Fixtures/hostile/broken-iccp-zlib.png").path
    #expect(try ImageDecoder.probe(contentsOf: png).hasICCProfile == false)  // unreadable profile: absent
  }

  @Test func probeReadsOnlyTheHeader() throws {
    // A JPEG cut right after its header still probes: the probe never needs the entropy-coded data.
    let bytes = try Fixtures.bytes("Landscape_1.jpg")
    let header = try ImageDecoder.probe(Array(bytes[..<2000]))
    #expect(header.width == 1800 && header.height == 1200)
    #expect(throws: DecodeError.self) { try ImageDecoder.decode(Array(bytes[..<2000])) }
  }
}
