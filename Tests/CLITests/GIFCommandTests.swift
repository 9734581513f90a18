import FixtureSupport
import Foundation
import ImageCodecs
import ParseFetch
import ParseFixtureSupport
import Testing

/// GIF files on the command line (issue 31), run as a user runs them: `info`, `verify`, the plain
/// command and `--thumbnail` on a still GIF, an animated one, a transparent one and a truncated one,
/// and a GIF downloaded from the fixture Parse Server into the cache.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct GIFCommandTests {
  static func gif(_ name: String) -> String {
    Fixtures.root.appendingPathComponent("Fixtures/formats/gif/\(name)").path
  }

  static func object(_ line: Substring) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
  }

  static func withCopies<T>(_ names: [String], _ body: (String, [String]) throws -> T) throws -> T {
    let url = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    let paths = try names.map { name in
      let path = url.path + "/" + name
      try FileManager.default.copyItem(atPath: gif(name), toPath: path)
      return path
    }
    return try body(url.path, paths)
  }

  @Test func infoDescribesAStillAndAnAnimatedGIF() throws {
    let run = try runImgfetch([
      "info", Self.gif("hopper.gif"), Self.gif("chi.gif"), Self.gif("first_frame_transparency.gif"),
    ])
    #expect(run.status == 0 && run.stderr.isEmpty)
    let objects = try run.stdoutText.split(separator: "\n").map(Self.object)
    #expect(objects.count == 3)
    #expect(objects.map { $0["format"] as? String } == ["gif", "gif", "gif"])
    #expect(objects.map { $0["frames"] as? Int } == [1, 31, 1])
    #expect(objects[0]["width"] as? Int == 128 && objects[0]["bitDepth"] as? Int == 8)
    #expect(objects[0]["hasAlpha"] as? Bool == false && objects[0]["colorType"] as? String == "palette")
    #expect(objects[2]["hasAlpha"] as? Bool == true && objects[2]["interlaced"] as? Bool == true)
    #expect(objects[1]["width"] as? Int == 320 && objects[1]["height"] as? Int == 240)
  }

  @Test func verifyAcceptsWholeGIFsAndRefusesCutOnesInOneLine() throws {
    let good = [Self.gif("hopper.gif"), Self.gif("chi.gif"), Self.gif("iss634.gif")]
    let ok = try runImgfetch(["verify"] + good)
    #expect(ok.status == 0 && ok.stderr.isEmpty)
    #expect(ok.stdoutText == good.map { "\($0): OK\n" }.joined())
    try Self.withCopies(["hopper.gif"]) { directory, sources in
      let cut = directory + "/cut.gif"
      let bytes = try Data(contentsOf: URL(fileURLWithPath: sources[0]))
      try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
      for arguments in [["verify", cut], [cut], ["--thumbnail", "64", cut]] {
        let run = try runImgfetch(arguments)
        #expect(run.status == 4, "\(arguments)")
        #expect(run.stderrText == "imgfetch: \(cut): truncated GIF: the file ends inside frame 1\n", "\(arguments)")
      }
      // No thumbnail of the cut file.
      let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
      #expect(left == ["cut.gif", "hopper.gif"])
    }
  }

  @Test func theFrameAndPixelLimitsHaveOptions() throws {
    let chi = Self.gif("chi.gif")
    let frames = try runImgfetch(["verify", "--max-frames", "30", chi])
    #expect(frames.status == 4)
    #expect(
      frames.stderrText
        == "imgfetch: \(chi): GIF over a decode limit: animation has more frames than the 30-frame limit\n")
    #expect(try runImgfetch(["verify", "--max-frames", "31", chi]).status == 0)
    let pixels = try runImgfetch(["verify", "--max-pixels", "50000", chi])
    #expect(pixels.status == 4)
    #expect(
      pixels.stderrText
        == "imgfetch: \(chi): GIF over a decode limit: the logical screen is 320x240 (76800 pixels), over the 50000-pixel limit\n"
    )
  }

  /// A GIF's thumbnail is the thumbnail of its pixels: the same as that of a PNG holding the pixels
  /// imgfetch decodes (which GIFReferenceTests hold to Pillow's), opaque (JPEG) and with alpha (PNG).
  @Test func aThumbnailOfAGIFIsTheThumbnailOfItsPixels() throws {
    try Self.withCopies(["hopper.gif", "first_frame_transparency.gif", "chi.gif"]) { directory, sources in
      var twins: [String] = []
      for source in sources {
        let twin = source + ".twin.png"
        try ImageEncoder.write(try ImageDecoder.decode(contentsOf: source), as: .png(), to: twin)
        twins.append(twin)
      }
      let run = try runImgfetch(["--thumbnail", "64", "-q"] + sources + twins)
      #expect(run.status == 0 && run.stderrText.isEmpty, "\(run.stderrText)")
      for (source, twin) in zip(sources, twins) {
        let suffix = try ImageDecoder.probe(contentsOf: source).hasAlpha ? ".thumb-64.png" : ".thumb-64.jpg"
        let made = try ImageDecoder.decode(contentsOf: source + suffix)
        let expected = try ImageDecoder.decode(contentsOf: twin + suffix)
        #expect(max(made.width, made.height) == 64 && made.bytes == expected.bytes, "\(source)")
      }
      // The folder walk takes GIFs by extension, and by content without one.
      try FileManager.default.moveItem(atPath: sources[2], toPath: directory + "/animation")
      let walk = try runImgfetch(["verify", directory])
      #expect(walk.status == 0 && walk.stdoutText.contains("\(directory)/animation: OK\n"), "\(walk.stdoutText)")
      #expect(walk.stdoutText.contains("\(directory)/hopper.gif: OK\n"))
    }
  }

  /// A GIF downloaded from the fixture Parse Server (served as image/gif) becomes a cache entry
  /// that keeps its `.gif`; a cut one is refused in one line and never enters the cache.
  @Test func aDownloadedGIFIsCachedAsAGIFAndACutOneNot() async throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let cut = scratch.appendingPathComponent("cut.gif").path
    let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.gif("chi.gif")))
    try bytes.prefix(bytes.count - 1).write(to: URL(fileURLWithPath: cut))
    let fixture = try await ParseFixture(files: ["chi.gif": Self.gif("chi.gif"), "cut.gif": cut])
    let cache = scratch.appendingPathComponent("cache")
    let run = try runImgfetch([fixture.fileURL("chi.gif").absoluteString, "--cache-dir", cache.path])
    #expect(run.status == 0, "\(run.stderrText)")
    func kept() -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []).filter {
        if case .entry = CacheFile(fileName: $0) { return true }
        return false
      }
    }
    let entries = kept()
    #expect(entries.count == 1 && entries.allSatisfy { $0.hasSuffix(".gif") }, "\(entries)")
    if let entry = entries.first {
      #expect(try runImgfetch(["verify", cache.path + "/" + entry]).status == 0)
    }
    let refused = try runImgfetch([fixture.fileURL("cut.gif").absoluteString, "--cache-dir", cache.path])
    #expect(refused.status == 4)
    #expect(refused.stderrText.split(separator: "\n").count == 1, "\(refused.stderrText)")
    #expect(refused.stderrText.contains("truncated GIF: the file ends before its trailer (after frame 31)"))
    #expect(kept() == entries)
  }
}
