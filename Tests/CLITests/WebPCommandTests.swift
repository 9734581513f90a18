import FixtureSupport
import Foundation
import ImageCodecs
import Testing
import Thumbnails

/// WebP files on the command line (issue 31), run as a user runs them: `info`, `verify`, `decode`,
/// the plain command and `--thumbnail` on a still WebP, an animated one, a truncated and a damaged
/// one, and the WebP thumbnails imgfetch writes itself read back by `info` and `verify`.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct WebPCommandTests {
  static func webp(_ name: String) -> String {
    Fixtures.root.appendingPathComponent("Fixtures/formats/\(name)").path
  }

  static func object(_ line: Substring) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
  }

  static func withCopies<T>(_ names: [String], _ body: (String, [String]) throws -> T) throws -> T {
    let url = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    let paths = try names.map { name in
      let path = url.path + "/" + URL(fileURLWithPath: name).lastPathComponent
      try FileManager.default.copyItem(atPath: webp(name), toPath: path)
      return path
    }
    return try body(url.path, paths)
  }

  @Test func infoDescribesAStillAndAnAnimatedWebP() throws {
    let still = Self.webp("webp/lossy_alpha1.webp")
    let animated = Self.webp("webp-made/anim-3-frames.webp")
    let oriented = Self.webp("webp-made/exif-orientation-6.webp")
    let profiled = Self.webp("webp-made/display-p3.webp")
    let run = try runImgfetch(["info", still, animated, oriented, profiled])
    #expect(run.status == 0 && run.stderr.isEmpty)
    let lines = run.stdoutText.split(separator: "\n")
    #expect(lines.count == 4)
    let first = try Self.object(lines[0])
    #expect(first["format"] as? String == "webp" && first["frames"] as? Int == 1 && first["bitDepth"] as? Int == 8)
    #expect(first["width"] as? Int == 1000 && first["height"] as? Int == 307 && first["hasAlpha"] as? Bool == true)
    #expect(first["colorType"] as? String == "rgba" && first["lossless"] as? Bool == false)
    #expect(first["colorSource"] as? String == "unspecified")
    let second = try Self.object(lines[1])
    #expect(second["format"] as? String == "webp" && second["frames"] as? Int == 3)
    let third = try Self.object(lines[2])
    #expect(third["orientation"] as? Int == 6 && third["width"] as? Int == 1200 && third["storedWidth"] as? Int == 1800)
    let fourth = try Self.object(lines[3])
    #expect(fourth["colorSource"] as? String == "iccProfile" && fourth["iccProfile"] as? Bool == true)
    #expect(fourth["colorProfile"] as? String == "Display P3 (imgfetch test)")
  }

  @Test func verifyAcceptsWholeWebPsAndRefusesDamagedOnesInOneLine() throws {
    let good = [Self.webp("webp/test.webp"), Self.webp("webp-made/anim-3-frames.webp")]
    let ok = try runImgfetch(["verify"] + good)
    #expect(ok.status == 0 && ok.stderr.isEmpty)
    #expect(ok.stdoutText == good.map { "\($0): OK\n" }.joined())
    let cases = [
      ("webp-made/truncated-half.webp", "truncated WebP: WebP file ends early (2464 of the 4928 bytes its RIFF header says)"),
      ("webp-made/anim-bad-frame.webp", "corrupt WebP: WebP animation frame 2 of 3 does not decode"),
      ("webp-made/anim-truncated.webp", "truncated WebP: WebP file ends early (606 of the 910 bytes its RIFF header says)"),
      ("webp-made/lossless-damaged.webp", "corrupt WebP: WebP image data is corrupt (libwebp: bitstream error)"),
    ]
    for (name, reason) in cases {
      let run = try runImgfetch(["verify", Self.webp(name)])
      #expect(run.status == 4, "\(name)")
      #expect(run.stdout.isEmpty)
      #expect(run.stderrText == "imgfetch: \(Self.webp(name)): \(reason)\n")
      // The plain command gives the same verdict.
      let plain = try runImgfetch([Self.webp(name)])
      #expect(plain.status == 4 && plain.stderrText.contains(reason), "\(name): \(plain.stderrText)")
    }
  }

  @Test func theFrameLimitHasAnOption() throws {
    let animated = Self.webp("webp-made/anim-3-frames.webp")
    let refused = try runImgfetch(["verify", "--max-frames", "2", animated])
    #expect(refused.status == 4)
    #expect(refused.stderrText == "imgfetch: \(animated): WebP over a decode limit: animation has more frames than the 2-frame limit\n")
    #expect(try runImgfetch(["verify", "--max-frames", "3", animated]).status == 0)
    let usage = try runImgfetch(["verify", "--max-frames", "0", animated])
    #expect(usage.status == 1 && usage.stderrText.contains("--max-frames needs a whole number from 1 to 1000000"))
    #expect(try runImgfetch(["--help"]).stdoutText.contains("--max-frames N"))
  }

  @Test func decodeWritesDwebpsPixels() throws {
    // dwebp's RGBA of test.webp (Fixtures/formats/webp/dwebp.tsv); decode's auto layout of an
    // opaque WebP is rgb8, so rgba8 is asked for.
    let run = try runImgfetch(["decode", Self.webp("webp/test.webp"), "--pixel-format", "rgba8"])
    #expect(run.status == 0 && run.stderr.isEmpty)
    let table = try String(contentsOfFile: Self.webp("webp/dwebp.tsv"), encoding: .utf8)
    let row = try #require(table.split(separator: "\n").first { $0.hasPrefix("webp/test.webp\t") })
    #expect(SHA256.hex(run.stdout) == String(row.split(separator: "\t")[4]))
  }

  @Test func thumbnailsOfWebPsAndOfImgfetchsOwnWebPThumbnails() throws {
    try Self.withCopies(["webp/test.webp", "webp-made/anim-3-frames.webp", "webp-made/exif-orientation-6.webp"]) {
      directory, sources in
      let run = try runImgfetch(["--thumbnail", "64", "--format", "webp"] + sources)
      #expect(run.status == 0 && run.stderrText.isEmpty, "\(run.stderrText)")
      let thumbnails = sources.map { $0 + ".thumb-64.webp" }
      #expect(run.stdoutText == zip(sources, thumbnails).map { "\($0)\t\($1)\n" }.joined())
      // imgfetch reads the WebP it wrote: info, verify, and its pixels upright (1200x1800 seen).
      let info = try runImgfetch(["info"] + thumbnails)
      #expect(info.status == 0 && info.stderr.isEmpty)
      let objects = try info.stdoutText.split(separator: "\n").map(Self.object)
      #expect(objects.map { $0["format"] as? String } == ["webp", "webp", "webp"])
      #expect(objects[0]["width"] as? Int == 64 && objects[0]["height"] as? Int == 64)
      #expect(objects[2]["width"] as? Int == 43 && objects[2]["height"] as? Int == 64 && objects[2]["orientation"] as? Int == 1)
      let verify = try runImgfetch(["verify"] + thumbnails)
      #expect(verify.status == 0 && verify.stdoutText == thumbnails.map { "\($0): OK\n" }.joined())
      // The folder walk takes the WebP sources (by extension) and skips the thumbnails.
      let again = try runImgfetch(["--thumbnail", "64", "--format", "webp", "--json", directory])
      #expect(again.status == 0)
      #expect(again.stdoutText.components(separatedBy: "\"reused\":true").count == 4, "\(again.stdoutText)")
    }
  }

  @Test func aWebPsProfileIsConvertedOrKept() throws {
    try Self.withCopies(["webp-made/display-p3.webp"]) { directory, sources in
      #expect(try runImgfetch(["--thumbnail", "64", "-q"] + sources).status == 0)
      let converted = try Self.object(try runImgfetch(["info", sources[0] + ".thumb-64.jpg"]).stdoutText.dropLast())
      #expect(converted["sRGB"] as? Bool == true && converted["iccProfile"] as? Bool == false)
      #expect(try runImgfetch(["--thumbnail", "64", "--keep-profile", "--format", "webp", "-q"] + sources).status == 0)
      let kept = try Self.object(try runImgfetch(["info", sources[0] + ".thumb-64.webp"]).stdoutText.dropLast())
      #expect(kept["colorSource"] as? String == "iccProfile")
      #expect(kept["colorProfile"] as? String == "Display P3 (imgfetch test)")
    }
  }

  @Test func aDamagedWebPMakesNoThumbnail() throws {
    try Self.withCopies(["webp-made/anim-bad-frame.webp", "webp-made/truncated-half.webp"]) { directory, sources in
      let run = try runImgfetch(["--thumbnail", "64"] + sources)
      #expect(run.status == 4)
      #expect(run.stderrText.contains("corrupt WebP: WebP animation frame 2 of 3 does not decode"))
      #expect(run.stderrText.contains("truncated WebP: WebP file ends early"))
      let left = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
      #expect(left == ["anim-bad-frame.webp", "truncated-half.webp"])
    }
  }

  @Test func aWebPWithoutItsExtensionIsFoundByItsContent() throws {
    try Self.withCopies(["webp/test.webp"]) { directory, sources in
      let bare = directory + "/picture"
      try FileManager.default.moveItem(atPath: sources[0], toPath: bare)
      let run = try runImgfetch(["verify", directory])
      #expect(run.status == 0 && run.stdoutText == "\(bare): OK\n")
    }
  }
}
