import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// Chunks after a PNG's image data get libpng's full-read verdict on every path (issue 21): libpng
/// reading to IEND with an info structure refuses an unknown critical chunk, a second PLTE or IHDR,
/// and a critical chunk with a bad CRC; an ancillary chunk (known, private, out of place, or with a
/// bad CRC) and an IDAT after other chunks are only warnings. Before, the whole-file path read the
/// end with `png_read_end(png, NULL)`, which checks only the chunks' CRCs: `imgfetch verify` and
/// `imgfetch f.png` accepted what the thumbnail and the streaming decoder refused.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(30))) struct ChunksAfterImageDataTests {
  static let directory = "Fixtures/verdicts/chunks-after-idat"

  /// libpng's verdict on each file (libpng 1.6's png_read_end and its progressive reader).
  static let decided: [(name: String, verdict: Verdict)] = [
    ("png-critical-unknown-after-idat.png", .rejected(.corrupt)),
    ("png-critical-unknown-with-data-after-idat.png", .rejected(.corrupt)),
    ("png-critical-unknown-after-idat-interlaced.png", .rejected(.corrupt)),
    ("png-critical-unknown-after-idat-palette.png", .rejected(.corrupt)),
    ("png-critical-unknown-after-text-after-idat.png", .rejected(.corrupt)),
    ("png-critical-unknown-bad-crc-after-idat.png", .rejected(.corrupt)),
    ("png-second-plte-after-idat.png", .rejected(.corrupt)),
    ("png-second-ihdr-after-idat.png", .rejected(.corrupt)),
    ("png-iend-bad-crc.png", .rejected(.corrupt)),
    ("png-plte-after-idat-truecolour.png", .accepted),
    ("png-idat-after-text-after-idat.png", .accepted),
    ("png-idat-with-data-after-text-after-idat.png", .accepted),
    ("png-idat-with-data-after-idat.png", .accepted),
    ("png-empty-idat-after-idat.png", .accepted),
    ("png-iend-with-data.png", .accepted),
    ("png-ancillary-unknown-after-idat.png", .accepted),
    ("png-text-after-idat.png", .accepted),
    ("png-trns-after-idat.png", .accepted),
    ("png-exif-after-idat.png", .accepted),
    ("png-iccp-after-idat.png", .accepted),
    ("png-text-bad-crc-after-idat.png", .accepted),
  ]

  @Test func everyFileOfTheClassHasADecidedVerdict() {
    #expect(Set(Corpus.files(under: Self.directory)) == Set(Self.decided.map { "\(Self.directory)/\($0.name)" }))
  }

  @Test(arguments: decided.map(\.name))
  func aChunkAfterTheImageDataHasLibpngsVerdictOnEveryPath(_ name: String) async throws {
    let expected = try #require(Self.decided.first { $0.name == name }).verdict
    let file = "\(Self.directory)/\(name)"
    let check = CrossPathCheck(
      name: file, bytes: try Corpus.bytes(file), file: Fixtures.root.appendingPathComponent(file).path, seed: 11)
    #expect(check.reference.verdict == expected, "libpng alone: \(check.reference)")
    let problems = try await CrossPathVerdictTests.problems([check])
    #expect(problems.isEmpty, CrossPathVerdictTests.report(problems))
  }

  /// The command line: `imgfetch verify`, `imgfetch FILE` (validates it in place) and
  /// `imgfetch --thumbnail` give each file the same verdict (exit 4 and the reason for a refused one).
  @Test(arguments: decided.map(\.name))
  func theCommandLineGivesLibpngsVerdict(_ name: String) throws {
    let expected = try #require(Self.decided.first { $0.name == name }).verdict
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent(name).path
    try FileManager.default.copyItem(
      atPath: Fixtures.root.appendingPathComponent("\(Self.directory)/\(name)").path, toPath: path)
    let verify = try runImgfetch(["verify", path])
    let validate = try runImgfetch([path])
    let thumbnail = try runImgfetch(["--thumbnail", "4", path])
    switch expected {
    case .accepted:
      #expect(verify.status == 0 && verify.stdoutText == "\(path): OK\n", "\(verify.stdoutText)")
      #expect(validate.status == 0, "\(validate.stderrText)")
      #expect(thumbnail.status == 0, "\(thumbnail.stderrText)")
    case .rejected:
      // The reason on stderr (issue 24.3), nothing on stdout.
      #expect(verify.status == 4 && verify.stdout.isEmpty)
      #expect(verify.stderrText.hasPrefix("imgfetch: \(path): corrupt PNG: "), "\(verify.stderrText)")
      for run in [validate, thumbnail] {
        #expect(run.status == 4, "\(run.stderrText)")
        #expect(run.stderrText.contains("corrupt PNG"), "\(run.stderrText)")
      }
    }
  }
}
