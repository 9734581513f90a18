import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// Thumbnails and the source's Exif (issue 32): none by default, so no GPS position leaves with a
/// thumbnail; `--keep-metadata` keeps it, the orientation tag set to 1 as the pixels are upright.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct MetadataTests {
  /// The GPS latitude 48° 51' 29.59" as three little-endian rationals: bytes to look for.
  static let latitude: [UInt8] = [48, 1, 51, 1, 2959, 100].flatMap { value -> [UInt8] in
    [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), 0, 0]
  }

  /// A little-endian TIFF block: IFD0 with orientation 6 and a GPS IFD pointer; the GPS IFD with
  /// GPSLatitudeRef N and GPSLatitude.
  static let exif: [UInt8] = {
    func u16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    func u32(_ value: Int) -> [UInt8] { u16(value & 0xFFFF) + u16(value >> 16) }
    func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
      u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
    }
    let ifd0 = u16(2) + entry(0x0112, 3, 1, u16(6)) + entry(0x8825, 4, 1, u32(38)) + u32(0)
    let gps = u16(2) + entry(0x0001, 2, 2, [0x4E, 0]) + entry(0x0002, 5, 3, u32(68)) + u32(0)
    return [0x49, 0x49, 0x2A, 0x00] + u32(8) + ifd0 + gps + latitude
  }()

  /// Portrait_6.jpg (stored 1800x1200, orientation 6) with its APP1 replaced by the GPS block.
  static func photo(in directory: String) throws -> String {
    var bytes = try Fixtures.bytes("Portrait_6.jpg")
    var at = 2
    while bytes[at + 1] != 0xE1 { at += 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])) }
    let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    let payload = Array("Exif".utf8) + [0, 0] + exif
    bytes.replaceSubrange(
      at..<(at + 2 + length),
      with: [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload)
    let path = directory + "/gps.jpg"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
    guard bytes.count >= needle.count else { return false }
    return (0...(bytes.count - needle.count)).contains { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
  }

  func thumbnail(_ arguments: [String]) throws -> (path: String, reused: Bool, bytes: [UInt8]) {
    let run = try runImgfetch(arguments + ["--json"])
    #expect(run.status == 0, "\(run.stderrText)")
    let object = try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any] ?? [:]
    let path = try #require(object["thumbnailPath"] as? String)
    return (path, object["reused"] as? Bool ?? false, Array(try Data(contentsOf: URL(fileURLWithPath: path))))
  }

  @Test func aThumbnailCarriesNoExifUnlessAskedAndThenItIsUpright() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let source = try Self.photo(in: directory)
      #expect(try ImageDecoder.probe(contentsOf: source).orientation.rawValue == 6)
      let exifMarker = Array("Exif".utf8) + [0, 0]
      let plain = try thumbnail(["--thumbnail", "64", source])
      #expect(!Self.contains(plain.bytes, exifMarker) && !Self.contains(plain.bytes, Self.latitude))
      #expect(!Self.contains(plain.bytes, Array("GPS".utf8)))

      let kept = try thumbnail(["--thumbnail", "64", "--keep-metadata", source])
      #expect(!kept.reused, "another stamp: made again")
      #expect(Self.contains(kept.bytes, exifMarker) && Self.contains(kept.bytes, Self.latitude))
      let header = try ImageDecoder.probe(contentsOf: kept.path)
      #expect(header.orientation == .up, "the orientation tag says upright")
      #expect((header.width, header.height) == (43, 64), "the pixels are upright")
      #expect(try ImageDecoder.decode(contentsOf: kept.path).width == 43)
      #expect(try thumbnail(["--thumbnail", "64", "--keep-metadata", source]).reused, "its stamp is read back")
      let again = try thumbnail(["--thumbnail", "64", source])
      #expect(!again.reused && !Self.contains(again.bytes, Self.latitude))

      // Without rotation the tag keeps saying how to turn the stored pixels.
      let stored = try thumbnail(["--thumbnail", "64", "--keep-metadata", "--no-rotate", source])
      #expect(try ImageDecoder.probe(contentsOf: stored.path).orientation.rawValue == 6)
    }
  }

  @Test(arguments: ["png", "webp"])
  func pngAndWebPKeepItToo(format: String) throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let source = try Self.photo(in: directory)
      let plain = try thumbnail(["--thumbnail", "64", "--format", format, source])
      #expect(!Self.contains(plain.bytes, Self.latitude))
      let kept = try thumbnail(["--thumbnail", "64", "--format", format, "--keep-metadata", source])
      #expect(Self.contains(kept.bytes, Self.latitude))
      // The file is still whole: it decodes (PNG's CRCs, WebP's RIFF sizes), upright.
      let image = try ImageDecoder.decode(contentsOf: kept.path)
      #expect((image.width, image.height) == (43, 64))
      #expect(try thumbnail(["--thumbnail", "64", "--format", format, "--keep-metadata", source]).reused)
    }
  }
}
