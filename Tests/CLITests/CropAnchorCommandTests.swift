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

  /// Several sizes from one decode each keep the detailed part; the anchor is in each stamp, so a
  /// second run reuses them and a run with the centre anchor makes them again.
  @Test func everySizeOfOneDecodeKeepsTheDetailedPart() throws {
    let url = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    let source = url.path + "/detail.png"
    try Data(Self.detailedAtTheEnd(tall: false)).write(to: URL(fileURLWithPath: source))
    let sizes: [(Int, String)] = [(64, "64x64"), (24, "24x24")]
    func run(_ crop: String) throws -> (json: String, grey: [Double]) {
      let run = try runImgfetch(
        ["--thumbnail", "64x64,24x24", "--fit", "cover", "--format", "png", "--crop", crop, "--json", source])
      #expect(run.status == 0, "\(run.stderrText)")
      let grey = try sizes.map { side, label in
        let image = try ImageDecoder.decode(contentsOf: "\(source).thumb-\(label)-cover.png")
        #expect(image.width == side && image.height == side)
        let bytes = image.bytes
        let count = stride(from: 0, to: bytes.count, by: 3).filter {
          bytes[$0..<$0 + 3].max()! - bytes[$0..<$0 + 3].min()! < 20
        }.count
        return Double(count) / Double(side * side)
      }
      return (run.stdoutText, grey)
    }
    let attention = try run("attention")
    #expect(attention.grey.allSatisfy { $0 < 0.05 }, "\(attention.grey)")
    #expect(attention.json.contains(#""reused":false"#) && !attention.json.contains(#""reused":true"#))
    let again = try run("attention")
    #expect(!again.json.contains(#""reused":false"#), "both reused: \(again.json)")
    let centre = try run("centre")
    #expect(centre.grey.allSatisfy { $0 > 0.95 }, "\(centre.grey)")
    #expect(!centre.json.contains(#""reused":true"#), "the anchor changed: both made again")
  }

  /// With alpha: the transparent part is passed over for the opaque detailed one, and the PNG
  /// thumbnail keeps its alpha.
  @Test func attentionWithAlphaKeepsTheOpaqueDetail() throws {
    let url = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    let source = url.path + "/alpha.png"
    let rows = (0..<100).map { y in
      (0..<300).flatMap { x -> [UInt8] in
        guard x >= 200 else { return [128, 128, 128, 0] }
        return (x / 4 + y / 4) % 2 == 0 ? [0, 0, 255, 255] : [255, 0, 0, 255]
      }
    }
    var png = PNGBuilder()
    png.header(width: 300, height: 100, colorType: 6)
    png.pixels(rows)
    try Data(png.bytes).write(to: URL(fileURLWithPath: source))
    let run = try runImgfetch(["--thumbnail", "64x64", "--fit", "cover", "--crop", "attention", source])
    #expect(run.status == 0, "\(run.stderrText)")
    let image = try ImageDecoder.decode(contentsOf: source + ".thumb-64x64-cover.png")
    #expect(image.width == 64 && image.height == 64 && image.pixelFormat == .rgba8)
    let bytes = image.bytes
    let transparent = stride(from: 3, to: bytes.count, by: 4).filter { bytes[$0] < 128 }.count
    #expect(Double(transparent) / Double(64 * 64) < 0.05, "\(transparent) of 4096 pixels transparent")
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
