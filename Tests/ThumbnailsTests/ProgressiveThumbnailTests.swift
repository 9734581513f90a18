import FixtureSupport
import Foundation
@_spi(Fuzzing) import ImageCodecs
import Testing

@testable import Thumbnails

/// A progressive JPEG's thumbnail at 1/8 scale: every scan is decoded (by imgfetch's JPEG engine,
/// with its 1x1 luma kept DC-only), so the thumbnail is the one made from libjpeg's own decode and
/// its verdict is the full decode's, damage anywhere in the file included.
@Suite(.timeLimit(.minutes(30))) struct ProgressiveThumbnailTests {
  static func libjpegDecode(_ bytes: [UInt8], scale: JPEGScale) throws -> Image {
    var options = DecodeOptions(jpegScale: scale)
    options.libjpegOnly = true
    return try ImageDecoder.decode(bytes, options: options)
  }

  @Test func theThumbnailIsTheOneMadeFromLibjpegsOwnDecode() throws {
    let photo = try ImageEncoder.encode(
      TestImages.pattern(width: 1037, height: 611), as: .jpeg(quality: 92, progressive: true))
    let gray = try ImageEncoder.encode(
      TestImages.pattern(width: 700, height: 900, format: .gray8), as: .jpeg(quality: 80, progressive: true))
    for bytes in [photo, gray, try Fixtures.bytes("progressive.jpeg")] {
      let size = ThumbnailSize.longestSide(24)
      let header = try ImageDecoder.probe(bytes)
      #expect(header.isProgressive)
      let plan = ThumbnailPlan(
        sourceWidth: header.width, sourceHeight: header.height, orientation: .up, format: .jpeg,
        options: ThumbnailOptions(size: size))
      #expect(plan.jpegScale == .eighth)
      let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: size))
      let before = JPEGEngineCounts.current()
      let thumbnail = try thumbnailer.image(from: bytes)
      let after = JPEGEngineCounts.current()
      #expect(after.dcOnly - before.dcOnly == 1, "the engine made the 1/8 image from DCs")
      #expect(after.gaveUp == before.gaveUp)
      let fromLibjpeg = try ThumbnailRenderer.render(
        Self.libjpegDecode(bytes, scale: .eighth), plan: plan, filter: .lanczos3,
        flatten: bytes == gray ? false : true)
      #expect(thumbnail == fromLibjpeg)
    }
  }

  @Test func aTruncatedProgressiveFileIsRefusedAsTruncated() throws {
    let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(6)))  // 100x100: 1/8 scale
    #expect {
      try thumbnailer.image(contentsOf: Fixtures.image("truncated_jpeg.jpg"))
    } throws: { error in
      guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
      return decodeError.kind == .truncated && decodeError.path == Fixtures.image("truncated_jpeg.jpg")
    }
    let photo = try ImageEncoder.encode(
      TestImages.pattern(width: 640, height: 480), as: .jpeg(quality: 92, progressive: true))
    for cut in stride(from: photo.count / 3, to: photo.count - 1, by: photo.count / 7) {
      #expect {
        try thumbnailer.image(from: Array(photo.prefix(cut)))
      } throws: { error in
        guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
        return decodeError.kind == .truncated
      }
    }
  }

  @Test func aMissingDCScanAndTooManyScansAreRefused() throws {
    let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(1)))
    #expect(throws: ThumbnailError.self) { try thumbnailer.image(from: Fixtures.bytes("progressive-missing-dc.jpg")) }
    let bomb = [UInt8](try Data(contentsOf: Fixtures.root.appendingPathComponent("Fixtures/hostile/scans-2000.jpg")))
    #expect {
      try thumbnailer.image(from: bomb)
    } throws: { error in
      guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
      return decodeError.kind == .limitExceeded
    }
  }

  /// One verdict per file: damage in the last AC refinement scan fails the thumbnail as it fails
  /// the full decode (an earlier version skipped the luma AC scans at 1/8 and missed it).
  @Test func damageInsideTheLastACScanFailsTheThumbnailAsItFailsTheFullDecode() throws {
    var photo = try ImageEncoder.encode(
      TestImages.pattern(width: 640, height: 480), as: .jpeg(quality: 92, progressive: true))
    let lastScan = try #require((0..<(photo.count - 1)).last { photo[$0] == 0xFF && photo[$0 + 1] == 0xDA })
    for i in (lastScan + 40)..<(lastScan + 200) where photo[i] != 0xFF && photo[i - 1] != 0xFF { photo[i] = 0x7F }
    let full = Result { () throws(DecodeError) in try ImageDecoder.decode(photo) }
    guard case .failure(let fullError) = full else {
      Issue.record("the damaged file decodes in full")
      return
    }
    #expect {
      try Thumbnailer(options: ThumbnailOptions(size: .longestSide(40))).image(from: photo)
    } throws: { error in
      guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
      return decodeError.kind == fullError.kind && decodeError.message == fullError.message
    }
  }
}
