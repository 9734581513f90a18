import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// HEIF colour (issue 31): a HEIC with a Display P3 ICC profile (`colr prof`), an AVIF whose nclx
/// box says Display P3 (12/13/6) and an HDR AVIF in BT.2020 PQ (9/16/6, 10-bit) all decode to the
/// photo's colours in sRGB (Fixtures/color/make-heif-fixtures.py made them from the photo), and the
/// HDR one is mapped to SDR: its diffuse white is the photo's white, not a washed-out grey.
@Suite(.timeLimit(.minutes(10))) struct HEIFColorTests {
  static func fixture(_ name: String) -> String { ViewedImage.colorFixture(name) }

  @Test func theHeaderSaysWhatTheColoursAre() throws {
    let icc = try ImageDecoder.probe(contentsOf: Self.fixture("display-p3.heic")).colorSpace
    #expect(icc.origin == .iccProfile && icc.profileDescription == "Display P3 (imgfetch test)" && !icc.isSRGB)
    let p3 = try ImageDecoder.probe(contentsOf: Self.fixture("display-p3-nclx.avif")).colorSpace
    #expect(p3.origin == .nclx && !p3.isSRGB && p3.description == "nclx 12/13/6 full")
    #expect(p3.codePoints == ColorSpace.CodePoints(primaries: 12, transfer: 13, matrix: 6, fullRange: true))
    #expect(p3.codePoints?.isHDR == false)
    let pq = try ImageDecoder.probe(contentsOf: Self.fixture("bt2020-pq.avif"))
    #expect(pq.bitDepth == 10 && pq.colorSpace.origin == .nclx && pq.colorSpace.codePoints?.isHDR == true)
    // Primaries' coordinates as libheif gives them (Display P3's red is 0.680, 0.320).
    let red = try #require(p3.chromaticities)
    #expect(abs(red[2] - 0.68) < 0.001 && abs(red[3] - 0.32) < 0.001)
    // Microsoft's files say 1/13/6 (or leave it unspecified): sRGB, nothing to convert.
    let plain = try ImageDecoder.probe(contentsOf: Fixtures.root.appendingPathComponent(
      "Fixtures/formats/avif/Microsoft_kids_720p.avif").path).colorSpace
    #expect(plain.origin == .nclx && plain.isSRGB)
  }

  @Test(arguments: ["display-p3.heic", "display-p3-nclx.avif", "bt2020-pq.avif"])
  func decodingToSRGBGivesThePhotosColours(name: String) throws {
    let reference = try ViewedImage.reference()
    let converted = try ImageDecoder.decode(contentsOf: Self.fixture(name), options: DecodeOptions(colorSpace: .sRGB))
    #expect(converted.colorSpace == .sRGB)
    let difference = ColorDifference.meanDeltaE(reference, ViewedImage.picture(of: converted))
    // Lossy HEVC/AV1 at quality 95 and 8-bit rounding (the JPEG at quality 95 is under 1).
    #expect(difference < 2.5, "\(name): mean ΔE \(difference)")
    // The numbers as stored are not sRGB's (the conversion is what makes them right), and the
    // stored image says so: it is in the file's colour space.
    let stored = try ImageDecoder.decode(contentsOf: Self.fixture(name), options: DecodeOptions(pixelFormat: .rgb8))
    #expect(stored.colorSpace != .sRGB && !stored.colorSpace.isSRGB)
    let (a, b) = (stored.bytes, converted.bytes)
    #expect(a.count == b.count)
    // (The photo is not saturated: P3 and sRGB numbers differ most in its most colourful pixels.)
    let moved = zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    #expect(moved > 12, "\(name): the conversion changed no sample by more than \(moved)")
  }

  /// An nclx box whose codes libheif refuses (FuzzHEIF's leak finding: libheif made the profile,
  /// then refused it, and imgfetch did not free it) is no colour information: the image is
  /// untagged sRGB, and decodes.
  @Test func anNclxBoxLibheifRefusesIsNoColourInformation() throws {
    let file = Fixtures.root.appendingPathComponent(
      "Fixtures/regressions/FuzzHEIF/heic-nclx-unknown-primaries-profile-leaked")
    var bytes = try [UInt8](Data(contentsOf: file))
    // The HEIF the fuzz target makes of it: its first byte (the target's options) a box size's.
    bytes[0] = 0
    let header = try ImageDecoder.probe(bytes)
    #expect(header.format == .heic && header.width == 16 && header.height == 16)
    #expect(header.colorSpace.origin == .unspecified && header.colorSpace.isSRGB)
    let image = try ImageDecoder.decode(bytes, options: DecodeOptions(colorSpace: .sRGB))
    #expect(image.width == 16 && image.colorSpace == .sRGB)
  }
}
