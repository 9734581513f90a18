import FixtureSupport
import Foundation
import ImageCodecs
import ParseFixtureSupport
import Testing
import Thumbnails

/// `--thumbnail 64,256,1024` (issue 32): one run, one decode per source, a thumbnail per size,
/// run as a user runs it.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct SeveralSizesCommandTests {
  func json(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
  }

  static func name(_ source: String, _ size: String) -> String { "\(source).thumb-\(size).jpg" }

  /// The plain line lists every thumbnail, in the order asked; JSON lists every one under
  /// `thumbnails` (and the first in `thumbnailPath`); the largest is the file a run for that size
  /// alone writes (the same pixels).
  @Test func everySizeIsWrittenListedAndReused() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let source = directory + "/photo.jpg"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: source)
      let run = try runImgfetch(["--thumbnail", "64,256,1024", source])
      #expect(run.status == 0, "\(run.stderrText)")
      let names = ["64", "256", "1024"].map { Self.name(source, $0) }
      #expect(run.stdoutText == ([source] + names).joined(separator: "\t") + "\n")
      let largest = try ImageDecoder.decode(contentsOf: names[2])
      #expect((largest.width, largest.height) == (1024, 683))
      try FileManager.default.removeItem(atPath: names[2])
      let alone = try runImgfetch(["--thumbnail", "1024", source])
      #expect(alone.status == 0)
      #expect(try ImageDecoder.decode(contentsOf: names[2]) == largest)

      let again = try runImgfetch(["--thumbnail", "64,256,1024", "--json", source])
      #expect(again.status == 0, "\(again.stderrText)")
      let object = try #require(try json(again.stdoutText).first)
      #expect(object["thumbnailPath"] as? String == names[0])
      let list = try #require(object["thumbnails"] as? [[String: Any]])
      #expect(list.map { $0["path"] as? String } == names)
      #expect(list.map { [$0["width"] as? Int, $0["height"] as? Int] } == [[64, 43], [256, 171], [1024, 683]])
      #expect(list.allSatisfy { $0["reused"] as? Bool == true })
    }
  }

  /// With a template, `%d` tells the sizes apart; without it several sizes are a usage error.
  @Test func aTemplateNamesEachSizeWithPercentD() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let source = directory + "/photo.png"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: source)
      let run = try runImgfetch(["--thumbnail", "32,16x", "-o", "%s-%d.webp", source])
      #expect(run.status == 0, "\(run.stderrText)")
      #expect(run.stdoutText == "\(source)\t\(directory)/photo-32.webp\t\(directory)/photo-16x.webp\n")
      let repeated = try runImgfetch(["--thumbnail", "32,32", source])
      #expect(repeated.status == 1 && repeated.stderrText.contains("--thumbnail names 32 twice"))
    }
  }

  /// A download: its one validating decode makes every size (the pixels a local run of the same
  /// file writes), next to the entry; a second run downloads nothing and reuses them all.
  @Test func aDownloadGetsEverySize() async throws {
    let name = "0123456789abcdef0123456789abcdef_landscape.jpg"
    let fixture = try await ParseFixture(
      files: [name: "Landscape_1.jpg"],
      seed: ["classes": ["Photo": [ParseFixture.photo("aaaaaaaaaa", ParseFixture.file(name))]]])
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let arguments = [
      "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key", ParseFixture.restKey,
      "--cache-dir", cache.path, "Photo/aaaaaaaaaa", "--column", "MainImage", "--thumbnail", "64,128", "--json",
    ]
    let first = try runImgfetch(arguments)
    #expect(first.status == 0, "\(first.stderrText)")
    let entry = cache.path + "/" + name
    let object = try #require(try json(first.stdoutText).first)
    let list = try #require(object["thumbnails"] as? [[String: Any]])
    #expect(list.map { $0["path"] as? String } == [Self.name(entry, "64"), Self.name(entry, "128")])
    #expect(list.map { $0["reused"] as? Bool } == [false, false])
    let local = cache.path + "/local.jpg"
    try FileManager.default.copyItem(atPath: TestFiles.image("Landscape_1.jpg").path, toPath: local)
    let alone = try runImgfetch([local, "--thumbnail", "64,128", "-q"])
    #expect(alone.status == 0, "\(alone.stderrText)")
    for size in ["64", "128"] {
      let downloaded = try Data(contentsOf: URL(fileURLWithPath: Self.name(entry, size)))
      let made = try Data(contentsOf: URL(fileURLWithPath: Self.name(local, size)))
      #expect(try ImageDecoder.decode(downloaded) == ImageDecoder.decode(made), "\(size): the same pixels")
    }
    let second = try runImgfetch(arguments)
    #expect(second.status == 0, "\(second.stderrText)")
    let reused = try #require(try json(second.stdoutText).first?["thumbnails"] as? [[String: Any]])
    #expect(reused.map { $0["reused"] as? Bool } == [true, true])
    #expect(try await fixture.requests("files/\(ParseFixture.appID)/\(name)") == 1)
  }
}
