import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// Broken and hostile colour profiles are ignored with a reason: the image decodes as it would
/// without one (its numbers taken as sRGB), nothing crashes, and nothing allocates past the limits.
@Suite(.timeLimit(.minutes(30))) struct HostileProfileTests {
  static func bytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: ViewedImage.colorFixture(name))))
  }

  /// `jpeg` with its APP2 segments replaced by `segments` (each the data after "ICC_PROFILE\0",
  /// sequence number and count included), right after SOI.
  static func jpeg(_ jpeg: [UInt8], segments: [[UInt8]]) -> [UInt8] {
    var out: [UInt8] = [0xFF, 0xD8]
    for segment in segments {
      let data = Array("ICC_PROFILE".utf8) + [0] + segment
      out += [0xFF, 0xE2, UInt8((data.count + 2) >> 8), UInt8((data.count + 2) & 0xFF)] + data
    }
    var at = 2
    while at + 4 <= jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
      let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
      if jpeg[at + 1] != 0xE2 { out += jpeg[at..<(at + 2 + length)] }
      at += 2 + length
    }
    return out + jpeg[at...]
  }

  /// A profile in APP2 segments of at most 65,000 bytes, numbered in order.
  static func single(_ profile: [UInt8]) -> [[UInt8]] {
    let parts = stride(from: 0, to: profile.count, by: 65_000).map { Array(profile[$0..<min(profile.count, $0 + 65_000)]) }
    return parts.enumerated().map { [UInt8($0.offset + 1), UInt8(parts.count)] + $0.element }
  }

  static func expectIgnored(_ file: [UInt8], _ reason: String, limits: DecodeLimits = .standard) throws {
    let header = try ImageDecoder.probe(file, limits: limits)
    let note = try #require(header.colorSpace.ignoredProfile, "\(reason): not ignored")
    #expect(note.contains(reason), "\(note)")
    #expect(header.colorSpace.isSRGB && header.colorSpace.iccProfile == nil)
    // Decoded as if there were no profile; converting changes nothing.
    let plain = try ImageDecoder.decode(file, options: DecodeOptions(limits: limits))
    let converted = try ImageDecoder.decode(file, options: DecodeOptions(limits: limits, colorSpace: .sRGB))
    #expect(plain == converted)
  }

  @Test func aTruncatedProfileIsIgnored() throws {
    let profile = try Self.bytes("display-p3.icc")
    try Self.expectIgnored(Self.jpeg(try Self.bytes("display-p3.jpg"), segments: Self.single(Array(profile.prefix(300)))), "truncated (300 of")
    try Self.expectIgnored(Self.jpeg(try Self.bytes("display-p3.jpg"), segments: Self.single(Array(profile.prefix(40)))), "truncated (40 bytes)")
  }

  @Test func aProfileOfTheWrongClassOrModelIsIgnored() throws {
    let photo = try Self.bytes("display-p3.jpg")
    try Self.expectIgnored(Self.jpeg(photo, segments: Self.single(try Self.bytes("abstract-lab.icc"))), "'abst' profile")
    try Self.expectIgnored(Self.jpeg(photo, segments: Self.single(try Self.bytes("gray-gamma18.icc"))), "a gray profile on a rgb image")
    try Self.expectIgnored(Self.jpeg(photo, segments: Self.single(try Self.bytes("cmyk.icc"))), "a cmyk profile on a rgb image")
  }

  @Test func garbageWithAProfilesSignatureIsIgnored() throws {
    var garbage = try Self.bytes("display-p3.icc")
    for index in stride(from: 128, to: garbage.count, by: 1) { garbage[index] = UInt8(truncatingIfNeeded: index * 37) }
    try Self.expectIgnored(Self.jpeg(try Self.bytes("display-p3.jpg"), segments: Self.single(garbage)), "not an ICC profile")
  }

  @Test func segmentsThatDoNotAddUpAreIgnored() throws {
    let profile = try Self.bytes("display-p3.icc")
    let photo = try Self.bytes("display-p3.jpg")
    let half = profile.count / 2
    // The second of two segments missing; one repeated; numbered past the count.
    try Self.expectIgnored(Self.jpeg(photo, segments: [[1, 2] + profile.prefix(half)]), "missing, repeated")
    try Self.expectIgnored(Self.jpeg(photo, segments: [[1, 2] + profile.prefix(half), [1, 2] + profile.prefix(half)]), "missing, repeated")
    try Self.expectIgnored(Self.jpeg(photo, segments: [[3, 2] + profile]), "missing, repeated")
    // In the wrong order but complete: joined in sequence order and used.
    let swapped = Self.jpeg(photo, segments: [[2, 2] + profile[half...], [1, 2] + profile.prefix(half)])
    #expect(try ImageDecoder.probe(swapped).colorSpace.iccProfile == profile)
  }

  @Test func aHugeProfileIsIgnoredWithinTheChunkLimit() throws {
    // 140 segments of 65,000 bytes: 9.1 MB, over the standard 8 MB limit. Collecting stops there.
    let segment = [UInt8](repeating: 0x41, count: 65_000)
    let segments = (1...140).map { [UInt8($0), 140] + segment }
    let file = Self.jpeg(try Self.bytes("display-p3.jpg"), segments: segments)
    try Self.expectIgnored(file, "more than 8000000 bytes")
    // A lower limit applies to a real profile as well.
    try Self.expectIgnored(try Self.bytes("display-p3.jpg"), "more than 500 bytes", limits: DecodeLimits(maxChunkBytes: 500))
  }

  @Test func aPNGProfileLibpngRefusesIsIgnored() throws {
    // iCCP holding a truncated profile: libpng drops the chunk, and says why.
    let profile = Array(try Self.bytes("display-p3.icc").prefix(200))
    var png = PNGBuilder()
    png.header(width: 2, height: 2, bitDepth: 8, colorType: 2)
    png.chunk("iCCP", Array("P3".utf8) + [0, 0] + Zlib.stored(profile))
    png.pixels([[1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12]])
    let header = try ImageDecoder.probe(png.bytes)
    #expect(header.colorSpace.ignoredProfile?.hasPrefix("ICC profile ignored: ") == true)
    #expect(header.colorSpace.isSRGB)
    #expect(try ImageDecoder.decode(png.bytes, options: DecodeOptions(colorSpace: .sRGB)).bytes == (try ImageDecoder.decode(png.bytes).bytes))
  }
}
