import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Ctrl-C (SIGINT) and SIGTERM during a transfer: exit 130, nothing partial in the cache, the
/// `.part` data kept so the next run resumes.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct InterruptTests {
  static let name = "0123456789abcdef0123456789abcdef_landscape.jpg"

  @Test(arguments: [SIGINT, SIGTERM])
  func aSignalCancelsCleanlyAndTheNextRunResumes(_ signalNumber: Int32) async throws {
    let fixture = try await ParseFixture(
      files: [Self.name: "Landscape_1.jpg"],
      seed: [
        "classes": ["Photo": [ParseFixture.photo("aaaaaaaaaa", ParseFixture.file(Self.name))]],
        // 347 KB in 4 KB steps a second: over a minute, for every file request until the reset
        // below. The signal comes after the first step; the slow pace keeps the transfer running even
        // when a loaded test pool polls late.
        "faults": [
          [
            "target": "files/\(ParseFixture.appID)/\(Self.name)", "kind": "trickle", "chunk": 4096, "delay": 1.0,
            "times": -1,
          ]
        ],
      ])
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    _ = try DiskCache(directory: cache.path)  // made (and tagged) first: stderr.txt goes into it before the run
    let arguments = [
      "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key", ParseFixture.restKey,
      "--cache-dir", cache.path, "Photo/aaaaaaaaaa", "--column", "MainImage", "--retries", "0",
    ]
    let errors = cache.appendingPathComponent("stderr.txt")
    let errorFile = open(errors.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    try #require(errorFile >= 0)
    let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let process = try ChildProcess.Running([imgfetch] + arguments, stdio: [-1, -1, errorFile])
    close(errorFile)
    let part = cache.appendingPathComponent(Self.name + ".part")
    // The wait for the first bytes and the signal run on a thread of their own, not in `Task.sleep`
    // polls: in a clean-clone ASan run those woke only after the whole trickle had ended (the
    // cooperative threads were held by synchronous tests), and the signal came too late.
    let (signalled, stopped) = try await offThePool { () -> (Bool, Bool) in
      let deadline = ContinuousClock.now + .seconds(60)
      while ContinuousClock.now < deadline && process.isRunning {
        if let size = try? FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int, size > 0 { break }
        usleep(20_000)
      }
      guard process.isRunning else { return (false, true) }
      process.send(signalNumber)
      let stopBy = ContinuousClock.now + .seconds(30)
      while process.isRunning && ContinuousClock.now < stopBy { usleep(20_000) }
      return (true, !process.isRunning)
    }
    let termination = try await offThePool { process.waitUntilExit(limit: .seconds(5)) }
    if !signalled {
      let requests = try await fixture.requests("files/\(ParseFixture.appID)/\(Self.name)")
      Issue.record(
        "imgfetch ended (\(termination)) before the signal, after \(requests) file requests")
      return
    }
    #expect(stopped, "imgfetch did not stop promptly")
    #expect(termination == .exit(130))
    let names = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter {
      $0 != "stderr.txt" && $0 != ".locks" && $0 != "CACHEDIR.TAG"
    }
    #expect(names == [Self.name + ".part"])  // no entry, no temporary file: only resumable data
    // (FileHandle, not String(contentsOf:): the latter leaks its buffer on small files in this toolchain.)
    let stderrText = String(decoding: try FileHandle(forReadingFrom: errors).readToEnd() ?? Data(), as: UTF8.self)
    #expect(stderrText == "imgfetch: interrupted\n", "\(stderrText)")  // one line, no noise
    let partial = try FileManager.default.attributesOfItem(atPath: part.path)[.size] as? Int ?? 0
    #expect(partial > 0 && partial < 347_327)
    // The next run resumes from the .part (at full speed: the trickle is cleared) and completes.
    try await fixture.reset()
    let again = try runImgfetch(arguments)
    #expect(again.status == 0)
    #expect(again.stdoutText == cache.appendingPathComponent(Self.name).path + "\n")
    #expect(try Data(contentsOf: cache.appendingPathComponent(Self.name)) == Data(Fixtures.bytes("Landscape_1.jpg")))
  }
}
