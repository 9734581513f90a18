import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// `--background`, `--progressive` and `--chroma 444` (issue 32): read back from the written JPEG
/// (its pixels, its SOF marker, its sampling factors).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct JPEGOutputOptionsTests {
  /// A 64x64 RGBA PNG: the left half fully transparent (its hidden colour green), the right half
  /// opaque blue.
  static func halfTransparent(in directory: String) throws -> String {
    var bytes: [UInt8] = []
    for _ in 0..<64 { for x in 0..<64 { bytes += x < 32 ? [0, 255, 0, 0] : [0, 0, 255, 255] } }
    let path = directory + "/half.png"
    try ImageEncoder.write(Image(width: 64, height: 64, pixelFormat: .rgba8, bytes: bytes)!, as: .png(), to: path)
    return path
  }

  func thumbnail(_ arguments: [String]) throws -> String {
    let run = try runImgfetch(arguments + ["--json"])
    #expect(run.status == 0, "\(run.stderrText)")
    let object = try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any] ?? [:]
    return try #require(object["thumbnailPath"] as? String)
  }

  /// The pixel at (x, 32) of an rgb8 decode.
  func pixel(_ image: Image, x: Int) -> [Int] {
    image.withUnsafeBytes { bytes in (0..<3).map { Int(bytes[32 * image.bytesPerRow + x * 3 + $0]) } }
  }

  /// The SOF segment's marker and its first component's sampling byte.
  func frame(_ path: String) throws -> (marker: UInt8, sampling: UInt8) {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    var at = 2
    while at + 4 < bytes.count {
      let marker = bytes[at + 1]
      if (0xC0...0xC2).contains(marker) { return (marker, bytes[at + 11]) }
      at += 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
    }
    throw CocoaError(.fileReadCorruptFile)
  }

  @Test func alphaIsFlattenedOverTheBackgroundAskedFor() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let source = try Self.halfTransparent(in: directory)
      for (background, expected) in [(nil, [255, 255, 255]), ("#ff0000", [255, 0, 0]), ("black", [0, 0, 0])] {
        let more = background.map { ["--background", $0] } ?? []
        let path = try thumbnail(["--thumbnail", "64", "--format", "jpeg", source] + more)
        let image = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(pixelFormat: .rgb8))
        for (got, want) in zip(pixel(image, x: 8), expected) {
          #expect(abs(got - want) <= 6, "\(background ?? "white")")
        }
        for (got, want) in zip(pixel(image, x: 56), [0, 0, 255]) { #expect(abs(got - want) <= 6) }
      }
      let bad = try runImgfetch(["--thumbnail", "64", "--background", "mauve", source])
      #expect(bad.status == 1 && bad.stderrText.contains("--background must be white, black, gray, #rrggbb or #rgb"))
      // A PNG keeps alpha: the background does not apply, and the pixels are unchanged.
      // (Another size: the JPEG made above with --format jpeg would be reused by auto.)
      let png = try thumbnail(["--thumbnail", "63", "--background", "black", source])
      #expect(try ImageDecoder.probe(contentsOf: png).hasAlpha)
    }
  }

  @Test func progressiveWritesSOF2AndChroma444SamplesChromaFully() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let source = directory + "/photo.jpg"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: source)
      let baseline = try frame(try thumbnail(["--thumbnail", "64", source]))
      #expect(baseline.marker == 0xC0 || baseline.marker == 0xC1)
      #expect(baseline.sampling == 0x22, "4:2:0 by default")
      let progressive = try thumbnail(["--thumbnail", "64", "--progressive", source])
      #expect(try frame(progressive).marker == 0xC2)
      #expect(try ImageDecoder.probe(contentsOf: progressive).isProgressive)
      let full = try thumbnail(["--thumbnail", "64", "--chroma", "444", source])
      #expect(try frame(full) == (0xC0, 0x11) || frame(full) == (0xC1, 0x11))
      let both = try thumbnail(["--thumbnail", "64", "--chroma", "444", "--progressive", source])
      #expect(try frame(both) == (0xC2, 0x11))
      let image = try ImageDecoder.decode(contentsOf: both)
      #expect((image.width, image.height) == (64, 43))
      for arguments in [["--progressive", "--format", "png"], ["--chroma", "422"]] {
        let bad = try runImgfetch(["--thumbnail", "64", source] + arguments)
        #expect(bad.status == 1, "\(arguments)")
      }
    }
  }
}
