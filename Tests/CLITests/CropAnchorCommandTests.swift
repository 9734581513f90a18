import FixtureSupport
import Foundation
import ImageCodecs
import Testing
import Thumbnails

/// `--crop centre|attention` with `--fit cover` (issue 32): where the crop window goes.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct CropAnchorCommandTests {
  /// A 300x100 (or, `tall`, 100x300) RGB PNG: flat grey, except the last third, a red and blue checkerboard.
  static func detailedAtTheEnd(tall: Bool) -> [UInt8] {
    let (width, height) = tall ? (100, 300) : (300, 100)
    let rows = (0..<height).map { y in
      (0..<width).flatMap { x -> [UInt8] in
        guard (tall ? y : x) >= 200 else { return [128, 128, 128] }
        return (x / 4 + y / 4) % 2 == 0 ? [0, 0, 255] : [255, 0, 0]
      }
    }
    var png = PNGBuilder()
    png.header(width: UInt32(width), height: UInt32(height), colorType: 2)
    png.pixels(rows)
    return png.bytes
  }

  /// The share of a thumbnail's pixels that are grey (channels within 20 of each other).
  func greyShare(ofThumbnailOf source: String, crop: [String]) throws -> Double {
    let run = try runImgfetch(["--thumbnail", "64x64", "--fit", "cover", "--format", "png"] + crop + [source])
    #expect(run.status == 0, "\(run.stderrText)")
    let path = ThumbnailNaming.path(forSource: source, size: .box(width: 64, height: 64), fit: .cover, format: .png)
    let image = try ImageDecoder.decode(contentsOf: path)
    #expect(image.width == 64 && image.height == 64 && image.pixelFormat == .rgb8)
    let bytes = image.bytes
    let grey = stride(from: 0, to: bytes.count, by: 3).filter {
      let pixel = bytes[$0..<$0 + 3]
      return pixel.max()! - pixel.min()! < 20
    }.count
    try FileManager.default.removeItem(atPath: path)
    return Double(grey) / Double(64 * 64)
  }

  @Test(arguments: [false, true])
  func attentionKeepsTheDetailedPartAndCentreTheMiddle(tall: Bool) throws {
    let url = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    let source = url.path + "/detail.png"
    try Data(Self.detailedAtTheEnd(tall: tall)).write(to: URL(fileURLWithPath: source))
    #expect(try greyShare(ofThumbnailOf: source, crop: ["--crop", "attention"]) < 0.05)
    #expect(try greyShare(ofThumbnailOf: source, crop: ["--crop", "centre"]) > 0.95)
    #expect(try greyShare(ofThumbnailOf: source, crop: ["--crop", "center"]) > 0.95)
    #expect(try greyShare(ofThumbnailOf: source, crop: []) > 0.95)
  }

  @Test(arguments: [
    (["--thumbnail", "64x64", "--crop", "attention", "x.png"], "imgfetch: --crop needs --fit cover"),
    (["--thumbnail", "64x64", "--fit", "inside", "--crop", "centre", "x.png"], "imgfetch: --crop needs --fit cover"),
    (
      ["--thumbnail", "64x64", "--fit", "cover", "--crop", "middle", "x.png"],
      "imgfetch: --crop must be centre (or center) or attention (got middle)"
    ),
  ])
  func aCropWithoutCoverOrAnUnknownAnchorIsAUsageError(arguments: [String], message: String) throws {
    let run = try runImgfetch(arguments)
    #expect(run.status == 1)
    #expect(run.stderrText.hasPrefix(message))
    #expect(run.stderrText.split(separator: "\n").count == 1)
    #expect(run.stdoutText.isEmpty)
  }
}
