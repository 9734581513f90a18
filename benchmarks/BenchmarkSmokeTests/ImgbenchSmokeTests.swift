import FixtureSupport
import Foundation
import Testing

/// Runs the built `imgbench --smoke` on a repository fixture, so the harness cannot rot unnoticed.
/// The full benchmark is not part of CI; this only proves it runs and reports sane figures.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ImgbenchSmokeTests {
  /// `imgbench` sits beside `imgfetch` in the products directory of the build under test.
  static let imgbench = Fixtures.productsDirectory.appendingPathComponent("imgbench").path

  @Test func smokeRunExitsZeroWithOneJSONDocument() throws {
    let result = try runProcess(Self.imgbench, ["--smoke", Fixtures.image("Landscape_1.jpg")])
    #expect(result.status == 0, "stderr: \(result.stderrText)")
    let lines = result.stdoutText.split(separator: "\n")
    #expect(lines.count == 1)
    let run = try #require(
      try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    #expect(run["tool"] as? String == "imgbench")
    let files = try #require(run["files"] as? [[String: Any]])
    #expect(files.count == 1)
    let file = try #require(files.first)
    #expect(file["file"] as? String == "Landscape_1.jpg")
    #expect(file["width"] as? Int == 1800)
    #expect(file["height"] as? Int == 1200)
    let cases = try #require(file["cases"] as? [[String: Any]])
    #expect(
      cases.map { $0["name"] as? String } == [
        "full-fresh", "full-reused", "scale-1/2", "scale-1/4", "scale-1/8",
      ])
    let thumbnail = try #require(file["thumbnail"] as? [String: Any])
    #expect(thumbnail["width"] as? Int == 256)
    let thumbnailTiming = try #require(thumbnail["timing"] as? [String: Any])
    #expect((thumbnailTiming["medianMs"] as? Double ?? 0) > 0)
    for entry in cases {
      #expect(entry["pixelsMatch"] as? Bool == true)
      let ratio = try #require(entry["ratio"] as? Double)
      #expect(ratio > 0 && ratio.isFinite)
      let swift = try #require(entry["swift"] as? [String: Any])
      #expect((swift["megapixelsPerSecond"] as? Double ?? 0) > 0)
    }
  }

  /// Every performance figure the README quotes is the last `benchmarks/run`'s, as
  /// `benchmarks/report` wrote it: a figure typed by hand or left from an older run fails here.
  @Test func readmeFiguresAreTheLastRunsResults() throws {
    let report = Fixtures.root.appendingPathComponent("benchmarks/report").path
    let result = try runProcess("/usr/bin/env", ["python3", report, "--check"])
    #expect(result.status == 0, "stderr: \(result.stderrText)")
  }

  @Test func unknownOptionFailsWithUsage() throws {
    let result = try runProcess(Self.imgbench, ["--no-such-option"])
    #expect(result.status == 2)
    #expect(result.stderrText.contains("usage: imgbench"))
  }
}
