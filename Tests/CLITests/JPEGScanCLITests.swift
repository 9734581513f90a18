import FixtureSupport
import Foundation
import Testing

/// `imgfetch FILE --thumbnail` on the JPEG engine's scan regressions (Fixtures/regressions/JPEGScans),
/// run as a user runs it (the built binary, in a process with a time limit).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(5))) struct JPEGScanCLITests {
  /// Issue 30, defect 1: a progressive JPEG libjpeg refuses (a zero stored over a nonzero
  /// coefficient, then a refinement whose data ends early for libjpeg) got a thumbnail and exit 0;
  /// now exit 4 with libjpeg's message, and nothing written beside it or in the cache.
  @Test func aProgressiveFileLibjpegRefusesGetsNoThumbnail() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let name = "progressive-zero-over-nonzero-16x8.jpg"
    let source = directory.appendingPathComponent(name).path
    try FileManager.default.copyItem(
      atPath: Fixtures.root.appendingPathComponent("Fixtures/regressions/JPEGScans/\(name)").path, toPath: source)
    // A home and cache of its own, to see that nothing is written there either.
    let home = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let run = try runProcess(
      Fixtures.productsDirectory.appendingPathComponent("imgfetch").path, [source, "--thumbnail", "1"],
      environment: ["HOME": home.path, "XDG_CACHE_HOME": home.path + "/.cache"], limit: .seconds(60))
    #expect(run.status == 4)
    #expect(run.stdoutText.isEmpty)
    #expect(run.stderrText == "imgfetch: \(source): truncated JPEG: Corrupt JPEG data: premature end of data segment\n")
    #expect((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) == [name])
    #expect((try? FileManager.default.subpathsOfDirectory(atPath: home.path)) == [])
  }
}
