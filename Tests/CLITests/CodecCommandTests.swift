import FixtureSupport
import Foundation
import Testing

/// `imgfetch info | decode | verify` run as a user would: arguments in, bytes and exit codes out.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct CodecCommandTests {
  @Test func infoPrintsOneJSONObjectPerFile() throws {
    let result = try runImgfetch(["info", Fixtures.image("Landscape_5.jpg"), Fixtures.image("basi3p08.png")])
    #expect(result.status == 0)
    #expect(result.stderr.isEmpty)
    let lines = result.stdoutText.split(separator: "\n")
    #expect(lines.count == 2)
    let jpeg = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as! [String: Any]
    #expect(jpeg["format"] as? String == "jpeg")
    // Orientation 5 swaps the axes: seen 1800x1200, stored 1200x1800 (issue 24.3).
    #expect(jpeg["width"] as? Int == 1800 && jpeg["height"] as? Int == 1200)
    #expect(jpeg["storedWidth"] as? Int == 1200 && jpeg["storedHeight"] as? Int == 1800)
    #expect(jpeg["colorType"] as? String == "ycbcr" && jpeg["bitDepth"] as? Int == 8)
    #expect(jpeg["progressive"] as? Bool == false && jpeg["orientation"] as? Int == 5)
    #expect(jpeg["bytes"] as? Int == 351275)
    let png = try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as! [String: Any]
    #expect(png["colorType"] as? String == "palette" && png["interlaced"] as? Bool == true)
  }

  @Test func infoOnANonImageFailsWithOneLine() throws {
    let result = try runImgfetch(["info", Fixtures.image("MANIFEST.md")])
    #expect(result.status == 4)
    #expect(result.stdoutText.hasPrefix("{\"source\":\"\(Fixtures.image("MANIFEST.md"))\",\"error\":"))
    #expect(
      result.stderrText
        == "imgfetch: \(Fixtures.image("MANIFEST.md")): not an image: not a PNG, JPEG, WebP, GIF, HEIC or AVIF file (unrecognised signature)\n"
    )
  }

  @Test func decodeWritesReferencePixelsToStandardOutput() throws {
    let rows = try ReferenceRow.load()
    for name in ["basn3p08.png", "testorig.jpg", "jpg-gray.jpg", "jpg-cmyk-1.jpg"] {
      let row = rows.first { $0.file == name }!
      let result = try runImgfetch(["decode", Fixtures.image(name)])
      #expect(result.status == 0 && result.stderr.isEmpty)
      #expect(SHA256.hex(result.stdout) == row.sha256, "\(name)")
    }
  }

  @Test func decodeOrientAppliesTheExifOrientation() throws {
    let row = try ReferenceRow.load().first { $0.file == "Portrait_6.jpg" }!
    let result = try runImgfetch(["decode", Fixtures.image("Portrait_6.jpg"), "--orient", "-o", "-"])
    #expect(result.status == 0)
    #expect(result.stdout.count == row.oriented!.width * row.oriented!.height * 3)
    #expect(SHA256.hex(result.stdout) == row.oriented!.sha256)
  }

  @Test func decodePixelFormats() throws {
    let gray = try runImgfetch(["decode", Fixtures.image("testorig.jpg"), "--pixel-format", "gray8"])
    #expect(gray.stdout.count == 227 * 149)
    let native = try runImgfetch(["decode", Fixtures.image("basn6a16.png"), "--pixel-format", "native"])
    #expect(native.stdout.count == 32 * 32 * 8)
    let bad = try runImgfetch(["decode", Fixtures.image("testorig.jpg"), "--pixel-format", "cmyk"])
    #expect(bad.status == 1)
    #expect(bad.stderrText.split(separator: "\n").count == 1)
  }

  @Test func decodeToAFileIsAtomicAndFailureLeavesNothing() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("pixels.raw").path
    let ok = try runImgfetch(["decode", Fixtures.image("basn2c08.png"), "-o", target])
    #expect(ok.status == 0 && ok.stdout.isEmpty)
    #expect(FileManager.default.contents(atPath: target)?.count == 32 * 32 * 4)
    let failed = try runImgfetch(["decode", Fixtures.image("truncated_jpeg.jpg"), "-o", target + ".2"])
    #expect(failed.status == 4)
    #expect(failed.stderrText.hasSuffix("truncated JPEG: Premature end of JPEG file\n"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["pixels.raw"])
  }

  @Test func verifyReportsEachFileAndFailsIfAnyIsInvalid() throws {
    let good = Fixtures.image("basn0g08.png")
    let bad = Fixtures.image("badcrc.png")
    let result = try runImgfetch(["verify", good, bad])
    #expect(result.status == 2)  // some failed
    #expect(try runImgfetch(["verify", bad]).status == 4)  // every one failed as an invalid image
    #expect(result.stdoutText == "\(good): OK\n")
    #expect(result.stderrText == "imgfetch: \(bad): corrupt PNG: IDAT: CRC error\nimgfetch: 1 of 2 items failed\n")
    #expect(try runImgfetch(["verify", good]).status == 0)
  }

  @Test func libraryNoiseNeverReachesStandardError() throws {
    // junk_jpeg_header.jpg makes libjpeg warn; badcrc.png makes libpng error. Neither may print.
    let warned = try runImgfetch(["verify", Fixtures.image("junk_jpeg_header.jpg")])
    #expect(warned.status == 0 && warned.stderr.isEmpty)
    // The reasons are imgfetch's own lines (on stderr since issue 24.3), nothing else.
    let (badcrc, truncated) = (Fixtures.image("badcrc.png"), Fixtures.image("truncated_jpeg.jpg"))
    let failed = try runImgfetch(["verify", badcrc, truncated])
    #expect(
      failed.stderrText
        == "imgfetch: \(badcrc): corrupt PNG: IDAT: CRC error\nimgfetch: \(truncated): truncated JPEG: Premature end "
        + "of JPEG file\nimgfetch: 2 of 2 items failed\n")
  }

  @Test func usageErrorsExitOneWithOneLine() throws {
    for arguments in [["--bogus"], ["info"], ["decode", "a", "b"], ["verify", "--nope", "x"], []] {
      let result = try runImgfetch(arguments)
      #expect(result.status == 1, "\(arguments)")
      #expect(result.stderrText.split(separator: "\n").count == 1, "\(arguments)")
    }
  }

  @Test func helpListsCommandsAndExitCodes() throws {
    let result = try runImgfetch(["--help"])
    #expect(result.status == 0)
    for text in ["imgfetch info", "imgfetch decode", "imgfetch verify", "Exit codes", "130"] {
      #expect(result.stdoutText.contains(text), "\(text)")
    }
  }
}
