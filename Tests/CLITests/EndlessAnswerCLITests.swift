import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

/// Issue 30.5 as a user meets it: `imgfetch URL --timeout 3 --retries 0` against a server whose
/// redirect or error body never ends, or whose body drips a byte a second, ends within a bound with
/// the documented exit code and one clear line. Before the fix the first two ran until the server
/// gave up and the drip was never timed out; the hang guard fails them then rather than letting
/// them hang.
///
/// Wall time is all these can measure, so the server's answers last far longer than a loaded host
/// can slow a correct run: they end after `endlessLimit` (300 s); a run that waits for that end is
/// over `bound` (150 s) and stopped by the process limit (200 s). A correct run takes 3 s alone; on
/// a loaded 2-core CI host, 28 s four at once and 49 s alone beside the whole suite were seen.
@Suite(.runsOnTestThreads, .serialized, .timeLimit(.minutes(15))) struct EndlessAnswerCLITests {
  static let endlessLimit = 300
  static let bound = Duration.seconds(150)

  static func run(_ url: URL, _ options: [String] = []) async throws -> (ProcessResult, Duration, [String]) {
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let start = ContinuousClock.now
    let result = try await runProcessOffThePool(
      Fixtures.productsDirectory.appendingPathComponent("imgfetch").path,
      [url.absoluteString, "--timeout", "3", "--retries", "0", "--max-bytes", "100000", "--cache-dir", cache.path]
        + options, limit: .seconds(200))
    let names = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter {
      !$0.hasPrefix(".") && CacheFile(fileName: $0) != .tag
    }
    return (result, ContinuousClock.now - start, names)
  }

  @Test func aRedirectWithAnEndlessBodyIsFollowed() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let (result, elapsed, cached) = try await Self.run(server.url("/fixed/redirect-endless"))
    #expect(result.status == 0, "\(result.stderrText)")
    #expect(result.stderrText.isEmpty, "\(result.stderrText)")
    #expect(elapsed < Self.bound)
    let lines = result.stdoutText.split(separator: "\n")
    #expect(lines.count == 1 && cached.count == 1, "\(result.stdoutText) \(cached)")
  }

  @Test func anErrorWithAnEndlessBodyIsOneLineAndExit3() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let url = server.url("/fixed/error-endless")
    let (result, elapsed, cached) = try await Self.run(url)
    #expect(result.status == 3, "\(result.stderrText)")
    #expect(elapsed < Self.bound)
    #expect(
      result.stderrText == "imgfetch: \(url) answered HTTP 500 (the server is on fire); check access to the file\n",
      "\(result.stderrText)")
    #expect(cached.isEmpty, "\(cached)")
  }

  @Test func aBodyDrippingAByteASecondIsTooSlowAndExit3() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let url = server.url("/fixed/drip")
    let (result, elapsed, cached) = try await Self.run(url)
    #expect(result.status == 3, "\(result.stderrText)")
    #expect(elapsed >= .seconds(3) && elapsed < Self.bound, "one 3 s window, then the floor")
    let lines = result.stderrText.split(separator: "\n")
    #expect(lines.count == 1, "\(result.stderrText)")
    #expect(
      result.stderrText.hasPrefix(
        "imgfetch: \(url): could not download \(url) (the answer came slower than 1024 bytes/s ("),
      "\(result.stderrText)")
    // What arrived is kept for a later resume, and is no entry.
    #expect(cached.allSatisfy { CacheFile(fileName: $0).isTransient }, "\(cached)")
  }

  @Test func aDripPastMaxTimeIsExit3() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let url = server.url("/fixed/drip")
    let (result, elapsed, _) = try await Self.run(url, ["--min-speed", "0", "--max-time", "2"])
    #expect(result.status == 3, "\(result.stderrText)")
    #expect(elapsed >= .seconds(2) && elapsed < Self.bound)
    #expect(
      result.stderrText
        == "imgfetch: \(url): could not download \(url) (the answer took longer than the 2 s limit)\n",
      "\(result.stderrText)")
  }

  @Test(arguments: [["--min-speed", "-1"], ["--min-speed", "1.5"], ["--max-time", "inf"], ["--max-time", "-2"]])
  func anOutOfRangeClockIsAUsageError(option: [String]) throws {
    let result = try runImgfetch(["http://127.0.0.1:9/x.jpg"] + option)
    #expect(result.status == 1, "\(result.stderrText)")
    #expect(result.stderrText.contains("--\(option[0].dropFirst(2)) needs"), "\(result.stderrText)")
  }
}
