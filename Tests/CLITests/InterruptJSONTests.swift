import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `--json` and Ctrl-C (issue 32): the item a SIGINT cuts off still gets its JSON object, with
/// `"error":"interrupted"`, after the lines of the items that finished; the run exits 130.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct InterruptJSONTests {
  static let fast = "0123456789abcdef0123456789abcdef_fast.png"
  static let slow = "fedcba9876543210fedcba9876543210_slow.jpg"

  @Test func theItemCutOffGetsAnInterruptedObject() async throws {
    let fixture = try await ParseFixture(
      files: [Self.fast: "basn2c08.png", Self.slow: "Landscape_1.jpg"],
      seed: [
        "classes": [
          "Photo": [
            ParseFixture.photo("aaaaaaaaaa", ParseFixture.file(Self.fast)),
            ParseFixture.photo("bbbbbbbbbb", ParseFixture.file(Self.slow)),
          ]
        ],
        // 347 KB at 4 KB a second: still downloading long after the signal.
        "faults": [
          [
            "target": "files/\(ParseFixture.appID)/\(Self.slow)", "kind": "trickle", "chunk": 4096, "delay": 1.0,
            "times": -1,
          ]
        ],
      ])
    let cache = try Fixtures.temporaryDirectory()
    let outputs = try Fixtures.temporaryDirectory()
    defer {
      try? FileManager.default.removeItem(at: cache)
      try? FileManager.default.removeItem(at: outputs)
    }
    let stdoutPath = outputs.appendingPathComponent("stdout.txt").path
    let stdoutFile = open(stdoutPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    let stderrFile = open(
      outputs.appendingPathComponent("stderr.txt").path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    try #require(stdoutFile >= 0 && stderrFile >= 0)
    let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let process = try ChildProcess.Running(
      [
        imgfetch, "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key",
        ParseFixture.restKey, "--cache-dir", cache.path, "Photo/aaaaaaaaaa", "Photo/bbbbbbbbbb", "--column",
        "MainImage", "--retries", "0", "--jobs", "2", "--json",
      ], stdio: [-1, stdoutFile, stderrFile])
    close(stdoutFile)
    close(stderrFile)
    let part = cache.appendingPathComponent(Self.slow + ".part").path
    // Off the cooperative pool (as InterruptTests): the fast item's line is out and the slow one's
    // bytes are arriving, then the signal.
    let (signalled, stopped) = try await offThePool { () -> (Bool, Bool) in
      let deadline = ContinuousClock.now + .seconds(60)
      while ContinuousClock.now < deadline && process.isRunning {
        let lines = (try? String(contentsOfFile: stdoutPath, encoding: .utf8))?.split(separator: "\n").count ?? 0
        let partBytes = (try? FileManager.default.attributesOfItem(atPath: part)[.size] as? Int) ?? 0
        if lines >= 1 && partBytes > 0 { break }
        usleep(20_000)
      }
      guard process.isRunning else { return (false, true) }
      process.send(SIGINT)
      let stopBy = ContinuousClock.now + .seconds(20)
      while process.isRunning && ContinuousClock.now < stopBy { usleep(20_000) }
      return (true, !process.isRunning)
    }
    let termination = try await offThePool { process.waitUntilExit(limit: .seconds(5)) }
    try #require(signalled, "imgfetch ended (\(termination)) before the signal")
    #expect(stopped, "imgfetch did not stop within 20 s of SIGINT")
    // Cut off, not finished: the trickle (about 87 s) left no entry, only its `.part` (a wall-clock
    // bound here measured the loaded host: 89.7 s once, for a run signalled and stopped in time).
    #expect(!FileManager.default.fileExists(atPath: cache.appendingPathComponent(Self.slow).path))
    #expect(termination == .exit(130))
    let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: stdoutPath)), as: UTF8.self)
    let objects = try text.split(separator: "\n").map {
      try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(objects.count == 2, "\(text)")
    let finished = try #require(objects.first { $0["source"] as? String == "Photo/aaaaaaaaaa" })
    #expect(finished["error"] == nil && finished["format"] as? String == "png")
    let cut = try #require(objects.first { $0["source"] as? String == "Photo/bbbbbbbbbb" }, "\(text)")
    #expect(cut["error"] as? String == "interrupted")
    #expect(cut["objectId"] as? String == "bbbbbbbbbb")
    #expect(objects.last?["source"] as? String == "Photo/bbbbbbbbbb")
    let errors = String(
      decoding: try Data(contentsOf: outputs.appendingPathComponent("stderr.txt")), as: UTF8.self)
    #expect(errors == "imgfetch: interrupted\n", "\(errors)")
  }
}
