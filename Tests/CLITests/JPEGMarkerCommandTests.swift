import FixtureSupport
import Foundation
import Testing

/// Issue 30, defects 3, 4 and 12 at the command line (`Fixtures/regressions/JPEGMarkers`): exit
/// codes, the lines printed, and a time limit on every child, so a decode that loops forever fails
/// its test instead of holding the run.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct JPEGMarkerCommandTests {
  static func path(_ name: String) -> String {
    Fixtures.root.appendingPathComponent("Fixtures/regressions/JPEGMarkers/\(name)").path
  }

  static func imgfetch(_ arguments: [String]) throws -> ProcessResult {
    try runProcess(Fixtures.productsDirectory.appendingPathComponent("imgfetch").path, arguments, limit: .seconds(60))
  }

  static let gapFiles = [
    "gap-300000-zero-bytes-after-app0-sequential.jpg", "gap-300000-zero-bytes-after-app0-progressive.jpg",
  ]

  @Test(arguments: gapFiles)
  func verifyAcceptsALongMarkerFreeGap(_ name: String) throws {
    let run = try Self.imgfetch(["verify", Self.path(name)])
    #expect(run.status == 0, "\(run.stderrText)")
    #expect(run.stdoutText == "\(Self.path(name)): OK\n")
    #expect(run.stderr.isEmpty)
  }

  @Test(arguments: gapFiles)
  func aThumbnailOfALongMarkerFreeGapIsMade(_ name: String) throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let source = scratch.appendingPathComponent(name).path
    try FileManager.default.copyItem(atPath: Self.path(name), toPath: source)
    let run = try Self.imgfetch(["--thumbnail", "16", "--json", source])
    #expect(run.status == 0, "\(run.stderrText)")
    let line = try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any]
    let thumbnail = line?["thumbnailPath"] as? String
    #expect(thumbnail != nil)
    if let thumbnail { #expect(FileManager.default.fileExists(atPath: thumbnail)) }
  }

  /// The file the engine hands back to libjpeg (a DAC segment it does not decode), as a thumbnail:
  /// libjpeg reads it again through the descriptor the thumbnailer opened.
  @Test func aThumbnailOfAFileTheEngineHandsBackIsMade() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let source = scratch.appendingPathComponent("dac.jpg").path
    try FileManager.default.copyItem(atPath: Self.path("dac-in-huffman-file.jpg"), toPath: source)
    let run = try Self.imgfetch(["--thumbnail", "16", "--json", source])
    #expect(run.status == 0, "\(run.stderrText)")
    let line = try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any]
    #expect(line?["thumbnailWidth"] as? Int == 16)
  }

  @Test func aStrayByteAfterSOIIsAJPEG() throws {
    let path = Self.path("stray-byte-after-soi.jpg")
    let verify = try Self.imgfetch(["verify", path])
    #expect(verify.status == 0, "\(verify.stderrText)")
    #expect(verify.stdoutText == "\(path): OK\n")
    let info = try Self.imgfetch(["info", path])
    #expect(info.status == 0)
    let object = try JSONSerialization.jsonObject(with: Data(info.stdout)) as? [String: Any]
    #expect(object?["format"] as? String == "jpeg" && object?["width"] as? Int == 227)
    // The same pixels as the file without the byte (libjpeg discards it).
    let stray = try Self.imgfetch(["decode", path])
    let clean = try Self.imgfetch(["decode", Fixtures.image("testorig.jpg")])
    #expect(stray.status == 0 && stray.stdout == clean.stdout)
  }

  /// Found by content in a folder walk: a file without an image extension that starts FF D8 is
  /// listed (and validated) as a JPEG.
  @Test func aFolderWalkFindsAStrayByteJPEGByItsContent() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let source = scratch.appendingPathComponent("scan-0001").path
    try FileManager.default.copyItem(atPath: Self.path("stray-byte-after-soi.jpg"), toPath: source)
    let run = try Self.imgfetch([scratch.path])
    #expect(run.status == 0, "\(run.stderrText)")
    #expect(run.stdoutText == "\(source)\n")
  }

  @Test(arguments: ["soi-only.jpg", "soi-then-garbage.jpg"])
  func soiWithoutAnImageIsATruncatedJPEG(_ name: String) throws {
    let path = Self.path(name)
    let verify = try Self.imgfetch(["verify", path])
    #expect(verify.status == 4)
    #expect(verify.stdout.isEmpty)
    #expect(verify.stderrText == "imgfetch: \(path): truncated JPEG: Premature end of JPEG file\n")
    let info = try Self.imgfetch(["info", path])
    #expect(info.status == 4)
    #expect(info.stderrText.hasPrefix("imgfetch: \(path): truncated JPEG: "))
    #expect(!info.stderrText.contains("signature"))
  }
}
