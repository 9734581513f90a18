import FixtureSupport
import Foundation
import ImageCodecs
import Testing
import Thumbnails

/// `--placeholder thumbhash` (issue 32): the JSON line carries each thumbnail's ThumbHash, which
/// decodes to the thumbnail's colours.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct PlaceholderCommandTests {
  func json(_ arguments: [String]) throws -> [String: Any] {
    let run = try runImgfetch(arguments + ["--json"])
    #expect(run.status == 0, "\(run.stderrText)")
    return try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any] ?? [:]
  }

  /// The average colour (0...255) of an image decoded as rgb8.
  func average(_ image: Image) -> [Double] {
    image.withUnsafeBytes { bytes in
      var sums = [0.0, 0.0, 0.0]
      for index in stride(from: 0, to: image.byteCount, by: 3) {
        for channel in 0..<3 { sums[channel] += Double(bytes[index + channel]) }
      }
      return sums.map { $0 / Double(image.width * image.height) }
    }
  }

  @Test func theJSONLineCarriesAThumbHashOfTheThumbnail() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let source = directory + "/photo.jpg"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: source)
      let arguments = ["--thumbnail", "128", "--placeholder", "thumbhash", source]
      let first = try json(arguments)
      let text = try #require(first["thumbhash"] as? String, "\(first)")
      let hash = try #require(ThumbHash(base64: text))
      #expect(hash.bytes.count <= 25 && !hash.hasAlpha)
      let thumbnailPath = try #require(first["thumbnailPath"] as? String)
      let thumbnail = try ImageDecoder.decode(contentsOf: thumbnailPath, options: DecodeOptions(pixelFormat: .rgb8))
      let preview = try ImageDecoder.decode(
        try ImageEncoder.encode(hash.rendered(), as: .png()), options: DecodeOptions(pixelFormat: .rgb8))
      for (got, want) in zip(average(preview), average(thumbnail)) { #expect(abs(got - want) <= 12) }
      #expect(abs(hash.approximateAspectRatio - 128.0 / 85.0) < 0.4)
      // A reused thumbnail carries one too, of the same colours.
      let second = try json(arguments)
      #expect(second["reused"] as? Bool == true)
      let secondText = try #require(second["thumbhash"] as? String)
      let again = try #require(ThumbHash(base64: secondText))
      for (a, b) in zip(
        [again.averageColor.red, again.averageColor.green], [hash.averageColor.red, hash.averageColor.green])
      {
        #expect(abs(a - b) < 0.03)
      }
      // Without the option, no key; several sizes, one per size.
      #expect(try json(["--thumbnail", "128", source])["thumbhash"] == nil)
      let sizes = try json(["--thumbnail", "32,64", "--placeholder", "thumbhash", source])
      let list = try #require(sizes["thumbnails"] as? [[String: Any]])
      #expect(
        list.count == 2 && list.allSatisfy { ($0["thumbhash"] as? String).flatMap(ThumbHash.init(base64:)) != nil })
    }
  }

  @Test func aPlaceholderNeedsAThumbnailAndAKnownKind() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let source = directory + "/photo.jpg"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: source)
      let alone = try runImgfetch(["--placeholder", "thumbhash", source])
      #expect(alone.status == 1 && alone.stderrText.contains("--placeholder goes with --thumbnail SIZE"))
      let other = try runImgfetch(["--thumbnail", "64", "--placeholder", "blurhash", source])
      #expect(other.status == 1 && other.stderrText.contains("--placeholder must be thumbhash (got blurhash)"))
      let help = try runImgfetch(["--help"])
      #expect(help.stdoutText.contains("--placeholder KIND"))
    }
  }
}
