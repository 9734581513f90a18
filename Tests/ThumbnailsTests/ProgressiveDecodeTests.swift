import FixtureSupport
import Foundation
import ImageCodecs
import Testing

@testable import Thumbnails

/// At 1/8 scale a progressive JPEG needs only its DC scans; these tests hold that shortcut to the
/// full decode's pixels and errors.
@Suite(.timeLimit(.minutes(30))) struct ProgressiveDecodeTests {
  func thumbnailers(_ size: ThumbnailSize) -> (fast: Thumbnailer, full: Thumbnailer) {
    var full = ThumbnailOptions(size: size)
    full.decodesEveryScan = true
    return (Thumbnailer(options: ThumbnailOptions(size: size)), Thumbnailer(options: full))
  }

  @Test func theDCScansGiveExactlyThePixelsOfTheFullDecode() throws {
    let photo = try ImageEncoder.encode(
      TestImages.pattern(width: 1037, height: 611), as: .jpeg(quality: 92, progressive: true))
    let gray = try ImageEncoder.encode(
      TestImages.pattern(width: 700, height: 900, format: .gray8), as: .jpeg(quality: 80, progressive: true))
    for bytes in [photo, gray, try Fixtures.bytes("progressive.jpeg")] {
      let size = ThumbnailSize.longestSide(24)
      let header = try ImageDecoder.probe(bytes)
      #expect(header.isProgressive)
      #expect(
        ThumbnailPlan(
          sourceWidth: header.width, sourceHeight: header.height, orientation: .up, format: .jpeg,
          options: ThumbnailOptions(size: size)
        ).jpegScale == .eighth)
      let (fast, full) = thumbnailers(size)
      #expect(try fast.image(from: bytes) == full.image(from: bytes))
      let dcOnly = try #require(ProgressiveDCScans.extract(from: bytes, maxScans: 500))
      #expect(dcOnly.count < bytes.count)
      let options = DecodeOptions(jpegScale: .eighth)
      #expect(try ImageDecoder.decode(dcOnly, options: options) == ImageDecoder.decode(bytes, options: options))
    }
  }

  @Test func baselineFilesAndOtherScalesAreLeftToTheDecoder() throws {
    let baseline = try ImageEncoder.encode(TestImages.pattern(width: 300, height: 200), as: .jpeg(quality: 90))
    #expect(ProgressiveDCScans.extract(from: baseline, maxScans: 500) == nil)
    #expect(ProgressiveDCScans.extract(from: try Fixtures.bytes("basn2c08.png"), maxScans: 500) == nil)
  }

  @Test func aTruncatedProgressiveFileIsStillRefused() throws {
    let bytes = try Fixtures.bytes("truncated_jpeg.jpg")
    #expect(ProgressiveDCScans.extract(from: bytes, maxScans: 500) == nil)
    let (fast, _) = thumbnailers(.longestSide(6))  // 100x100: 1/8 scale
    #expect {
      try fast.image(contentsOf: Fixtures.image("truncated_jpeg.jpg"))
    } throws: { error in
      guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
      return decodeError.kind == .truncated && decodeError.path == Fixtures.image("truncated_jpeg.jpg")
    }
    // Cut anywhere after the DC scans: still refused.
    let photo = try ImageEncoder.encode(
      TestImages.pattern(width: 640, height: 480), as: .jpeg(quality: 92, progressive: true))
    for cut in stride(from: photo.count / 3, to: photo.count - 1, by: photo.count / 7) {
      #expect(ProgressiveDCScans.extract(from: Array(photo.prefix(cut)), maxScans: 500) == nil)
      #expect(throws: ThumbnailError.self) { try fast.image(from: Array(photo.prefix(cut))) }
    }
  }

  @Test func aMissingDCScanAndTooManyScansAreRefusedByTheDecoder() throws {
    let missingDC = try Fixtures.bytes("progressive-missing-dc.jpg")
    #expect(ProgressiveDCScans.extract(from: missingDC, maxScans: 500) == nil)
    let (fast, _) = thumbnailers(.longestSide(1))
    #expect(throws: ThumbnailError.self) { try fast.image(from: missingDC) }
    let bomb = [UInt8](try Data(contentsOf: Fixtures.root.appendingPathComponent("Fixtures/hostile/scans-2000.jpg")))
    #expect(ProgressiveDCScans.extract(from: bomb, maxScans: 500) == nil)
    #expect {
      try fast.image(from: bomb)
    } throws: { error in
      guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
      return decodeError.kind == .limitExceeded
    }
  }

  @Test func damageInsideSkippedACDataIsOnlySeenWhenEveryScanIsDecoded() throws {
    var photo = try ImageEncoder.encode(
      TestImages.pattern(width: 640, height: 480), as: .jpeg(quality: 92, progressive: true))
    // Overwrite part of the last scan's entropy data (AC refinement) with bytes that keep the
    // marker structure intact but break the Huffman stream.
    let lastScan = try #require(lastSOS(photo))
    for i in (lastScan + 40)..<(lastScan + 200) where photo[i] != 0xFF && photo[i - 1] != 0xFF { photo[i] = 0x7F }
    let (fast, full) = thumbnailers(.longestSide(40))
    let thumbnail = try fast.image(from: photo)
    #expect((thumbnail.width, thumbnail.height) == (40, 30))
    #expect(throws: ThumbnailError.self) { try full.image(from: photo) }
  }

  func lastSOS(_ bytes: [UInt8]) -> Int? {
    (0..<(bytes.count - 1)).last { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA }
  }
}
