import FixtureSupport
import Foundation
import Testing

/// Issue 24.3: one scripting contract for every command, checked command by command with exact
/// standard output, standard error and exit codes: results on stdout, reasons on stderr (one line
/// each, `imgfetch: SOURCE: reason`), with `--json` one object per input, failed ones included
/// (`{"source":…,"error":…}`, as the default command's), `--quiet` leaving errors only, "N of M
/// items failed" after several inputs with failures, and the exit codes of `--help`.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ScriptingContractTests {
  static let good = Fixtures.image("basn0g08.png")
  static let bad = Fixtures.image("badcrc.png")
  static let badReason = "\(bad): corrupt PNG: IDAT: CRC error"
  static let rotated = Fixtures.image("right-orientation.jpeg")

  static func objects(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
  }

  /// The object every command prints for a failed input.
  static func errorLine(_ source: String, _ message: String) -> String {
    "{\"source\":\"\(source)\",\"error\":\"\(message)\"}"
  }

  // MARK: the default command

  @Test func theDefaultCommandPrintsPathsObjectsAndTheSummary() throws {
    let plain = try runImgfetch([Self.good, Self.bad, "--jobs", "1"])
    #expect(plain.status == 2)
    #expect(plain.stdoutText == "\(Self.good)\n")
    #expect(plain.stderrText == "imgfetch: \(Self.badReason)\nimgfetch: 1 of 2 items failed\n")
    let json = try runImgfetch([Self.good, Self.bad, "--json"])
    #expect(json.status == 2)
    #expect(
      json.stdoutText
        == "{\"source\":\"\(Self.good)\",\"width\":32,\"height\":32,\"storedWidth\":32,\"storedHeight\":32,"
        + "\"format\":\"png\",\"bytes\":138}\n" + Self.errorLine(Self.bad, Self.badReason) + "\n")
    #expect(json.stderrText == plain.stderrText)
    let quiet = try runImgfetch([Self.good, Self.bad, "--quiet"])
    #expect(quiet.status == 2 && quiet.stdout.isEmpty && quiet.stderrText == plain.stderrText)
    let one = try runImgfetch([Self.bad])
    #expect(one.status == 4 && one.stdout.isEmpty && one.stderrText == "imgfetch: \(Self.badReason)\n")
  }

  // MARK: info

  @Test func infoPrintsAnObjectForEveryFileAndTheReasonOnStandardError() throws {
    let both = try runImgfetch(["info", Self.good, Self.bad, Fixtures.image("MANIFEST.md")])
    #expect(both.status == 2)  // one of three failed
    let objects = try Self.objects(both.stdoutText)
    #expect(objects.count == 3)
    #expect(objects[0]["source"] as? String == Self.good && objects[0]["file"] as? String == Self.good)
    #expect(objects[0]["width"] as? Int == 32 && objects[0]["error"] == nil)
    // badcrc.png's header is fine: info reads headers only; verify finds the CRC error.
    #expect(objects[1]["source"] as? String == Self.bad && objects[1]["error"] == nil)
    let manifest = Fixtures.image("MANIFEST.md")
    let reason = "\(manifest): not an image: not a PNG, JPEG, WebP, GIF, HEIC or AVIF file (unrecognised signature)"
    #expect(both.stdoutText.hasSuffix(Self.errorLine(manifest, reason) + "\n"))
    #expect(both.stderrText == "imgfetch: \(reason)\nimgfetch: 1 of 3 items failed\n")
    // --json changes nothing (info's results are JSON); --quiet leaves the errors.
    let json = try runImgfetch(["info", "--json", Self.good, manifest])
    #expect(json.status == 2 && json.stdoutText.hasSuffix(Self.errorLine(manifest, reason) + "\n"))
    let quiet = try runImgfetch(["info", "-q", Self.good, manifest])
    #expect(quiet.status == 2 && quiet.stdout.isEmpty)
    #expect(quiet.stderrText == "imgfetch: \(reason)\nimgfetch: 1 of 2 items failed\n")
    let quietJSON = try runImgfetch(["info", "-q", "--json", manifest])
    #expect(quietJSON.status == 4 && quietJSON.stdoutText == Self.errorLine(manifest, reason) + "\n")
    #expect(quietJSON.stderrText == "imgfetch: \(reason)\n")  // one input: no summary
    let missing = try runImgfetch(["info", "/nonexistent/x.png"])
    #expect(missing.status == 5)
    #expect(try Self.objects(missing.stdoutText).first?["source"] as? String == "/nonexistent/x.png")
  }

  // MARK: verify

  @Test func verifyPrintsOKOnStandardOutputAndReasonsOnStandardError() throws {
    let plain = try runImgfetch(["verify", Self.good, Self.bad])
    #expect(plain.status == 2)
    #expect(plain.stdoutText == "\(Self.good): OK\n")
    #expect(plain.stderrText == "imgfetch: \(Self.badReason)\nimgfetch: 1 of 2 items failed\n")
    let json = try runImgfetch(["verify", "--json", Self.good, Self.bad])
    #expect(json.status == 2)
    #expect(
      json.stdoutText
        == "{\"source\":\"\(Self.good)\",\"width\":32,\"height\":32,\"storedWidth\":32,\"storedHeight\":32,"
        + "\"format\":\"png\",\"bytes\":138}\n" + Self.errorLine(Self.bad, Self.badReason) + "\n")
    #expect(json.stderrText == plain.stderrText)
    let quiet = try runImgfetch(["verify", "--quiet", Self.good, Self.bad])
    #expect(quiet.status == 2 && quiet.stdout.isEmpty && quiet.stderrText == plain.stderrText)
    let allGood = try runImgfetch(["verify", "-q", Self.good, Self.good])
    #expect(allGood.status == 0 && allGood.stdout.isEmpty && allGood.stderr.isEmpty)
    let one = try runImgfetch(["verify", Self.bad])
    #expect(one.status == 4 && one.stdout.isEmpty && one.stderrText == "imgfetch: \(Self.badReason)\n")
    // Failures of different kinds: 2; of one kind: that kind's code.
    let mixed = try runImgfetch(["verify", Self.bad, "/nonexistent/x.png"])
    #expect(mixed.status == 2 && mixed.stdout.isEmpty && mixed.stderrText.hasSuffix("imgfetch: 2 of 2 items failed\n"))
  }

  // MARK: decode

  @Test func decodeDescribesWhatItWroteWithJSONAndOnlyToAFile() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("pixels.raw").path
    let json = try runImgfetch(["decode", Self.good, "-o", target, "--json"])
    #expect(json.status == 0 && json.stderr.isEmpty)
    #expect(
      json.stdoutText
        == "{\"source\":\"\(Self.good)\",\"output\":\"\(target)\",\"pixelFormat\":\"rgba8\",\"width\":32,"
        + "\"height\":32,\"bytesPerRow\":128,\"outputBytes\":4096}\n")
    #expect(FileManager.default.contents(atPath: target)?.count == 4096)
    let failed = try runImgfetch(["decode", Self.bad, "-o", target + ".2", "--json"])
    #expect(failed.status == 4)
    #expect(failed.stdoutText == Self.errorLine(Self.bad, Self.badReason) + "\n")
    #expect(failed.stderrText == "imgfetch: \(Self.badReason)\n")
    #expect(!FileManager.default.fileExists(atPath: target + ".2"))
    // Pixels on standard output leave no room for JSON; decode prints nothing that --quiet could remove.
    let toStandardOutput = try runImgfetch(["decode", Self.good, "--json"])
    #expect(toStandardOutput.status == 1 && toStandardOutput.stdout.isEmpty)
    #expect(
      toStandardOutput.stderrText
        == "imgfetch: decode: --json goes with -o PATH (the pixels would share standard output with the JSON) "
        + "(see imgfetch --help)\n")
    let quiet = try runImgfetch(["decode", Self.good, "-o", target, "-q"])
    #expect(
      quiet.status == 1 && quiet.stderrText == "imgfetch: --quiet does not apply to decode (see imgfetch --help)\n")
    let plain = try runImgfetch(["decode", Self.bad, "-o", target])
    #expect(plain.status == 4 && plain.stdout.isEmpty && plain.stderrText == "imgfetch: \(Self.badReason)\n")
  }

  // MARK: sizes

  /// An orientation-6 photo stored 480x640 is seen as 640x480: `width` and `height` say what a
  /// person sees (and what the thumbnail has), `storedWidth` and `storedHeight` what the file stores,
  /// in the default command's, info's and verify's JSON alike.
  @Test func theJSONGivesTheSizeAsSeenAndAsStored() throws {
    let info = try #require(try Self.objects(runImgfetch(["info", Self.rotated]).stdoutText).first)
    #expect(info["orientation"] as? Int == 6)
    let verify = try #require(try Self.objects(runImgfetch(["verify", "--json", Self.rotated]).stdoutText).first)
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("photo.jpeg").path
    try FileManager.default.copyItem(atPath: Self.rotated, toPath: copy)
    let fetched = try runImgfetch([copy, "--thumbnail", "64", "--json"])
    #expect(fetched.status == 0, "\(fetched.stderrText)")
    let object = try #require(try Self.objects(fetched.stdoutText).first)
    for (name, json) in [("info", info), ("verify", verify), ("default", object)] {
      #expect(json["width"] as? Int == 640 && json["height"] as? Int == 480, "\(name)")
      #expect(json["storedWidth"] as? Int == 480 && json["storedHeight"] as? Int == 640, "\(name)")
    }
    #expect(object["thumbnailWidth"] as? Int == 64 && object["thumbnailHeight"] as? Int == 48)
  }
}
