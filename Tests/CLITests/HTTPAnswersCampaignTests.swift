import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

/// The HTTP answers campaign's fixed-seed sequence (fuzz/http-answers, fuzz/README.md): the driver
/// runs the built `imgfetch` against the random answers server for the seeds `ci-0`… and checks
/// each run's time bound, exit code, stderr lines, stdout, cache contents (`imgfetch verify`) and peak
/// memory. The same seeds draw the same answers on every machine; exploring with new seeds is the
/// campaign's job. A failure prints the seed, which `drive.py --replay SEED` runs again.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(5))) struct HTTPAnswersCampaignTests {
  @Test func theFixedSeedsPass() throws {
    let driver = Fixtures.root.appendingPathComponent("fuzz/http-answers/drive.py").path
    let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let result = try runProcess(
      "/usr/bin/python3",
      [driver, "--imgfetch", imgfetch, "--runs", "16", "--jobs", "2", "--seed", "ci", "--timeout", "1", "--max-time", "4",
        // Room for a loaded CI host: the bound is what catches a run that never ends, not a slow one.
        "--slack", "40",
      ],
      limit: .seconds(280))
    #expect(result.status == 0, "\(result.stdoutText)\(result.stderrText)")
    #expect(result.stdoutText.contains("runs 16, failed 0,"), "\(result.stdoutText)")
  }

  /// Seed c1-206: 95 bytes that are no image, announced as 47170, then the connection closes. The
  /// `.part` was kept for a resume (a truncated body is transient) before the validation had seen
  /// the bytes: exit 3, "try again later", and garbage in the cache. Now the validation judges
  /// them first: exit 4, the reason, nothing kept.
  @Test func noImageCutShortIsAnInvalidImageAndLeavesNothing() async throws {
    let server = try await AnswersServer()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let url = server.url("/fixed/garbage-cut")
    let result = try await runProcessOffThePool(
      Fixtures.productsDirectory.appendingPathComponent("imgfetch").path,
      [url.absoluteString, "--retries", "0", "--timeout", "3", "--cache-dir", cache.path], limit: .seconds(60))
    #expect(result.status == 4, "\(result.stderrText)")
    let lines = result.stderrText.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("is not a valid image and was not cached"), "\(result.stderrText)")
    let left = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter {
      !$0.hasPrefix(".") && CacheFile(fileName: $0) != .tag
    }
    #expect(left.isEmpty, "\(left)")
  }

  /// Seed c1-2864: an error status whose body is a JPEG put its bytes, NULs and control
  /// characters included, into the message, and so onto the terminal. A body that is not text now
  /// gives no excerpt: the status alone.
  @Test func anErrorWhoseBodyIsNoTextIsTheStatusAlone() async throws {
    let server = try await AnswersServer()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let url = server.url("/fixed/error-binary")
    let result = try await runProcessOffThePool(
      Fixtures.productsDirectory.appendingPathComponent("imgfetch").path,
      [url.absoluteString, "--retries", "0", "--cache-dir", cache.path], limit: .seconds(60))
    #expect(result.status == 3, "\(result.stderrText)")
    #expect(result.stderrText == "imgfetch: \(url) answered HTTP 503; check access to the file\n", "\(result.stderrText)")
  }
}
