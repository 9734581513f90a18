import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

/// Issue 14.1 through the built binary: a 41-byte PNG whose ancillary chunk header claims up to
/// 2 GiB is one limit-error line and exit 4 for every command, fast, in bounded memory (the child's
/// own peak RSS, from `wait4`). The memory bound is what tells the old code apart (it allocated and
/// zeroed up to 2 GiB, in 1-1.5 s); how fast a bomb is refused is measured by the benchmarks, not here:
/// a bound on a single run's wall time was lost twice on a loaded machine (71 s, 87 s) for a run that
/// takes ~20 ms, so the suite's time limit is the hang guard.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ChunkBombCLITests {
  static let peakLimit = 64 << 20

  /// Every ancillary chunk type at every tested length, written as files into `directory`.
  static func bombs(in directory: URL) throws -> [(path: String, type: String, length: UInt32)] {
    try ChunkBombs.ancillaryTypes.flatMap { type in
      try ChunkBombs.lengths.map { length in
        let path = directory.appendingPathComponent("\(type)-\(length).png").path
        try Data(ChunkBombs.file(type, claimedLength: length)).write(to: URL(fileURLWithPath: path))
        return (path, type, length)
      }
    }
  }

  static func limitLine(_ path: String, _ type: String, _ length: UInt32) -> String {
    "\(path): PNG over a decode limit: PNG chunk \(type) is \(length) bytes, over the 8000000-byte chunk limit"
  }

  static func expectBounded(_ run: MeasuredResult, _ what: String) {
    #expect(run.result.status == 4, "\(what): \(run.result.stderrText)")
    #expect(run.peakResidentBytes <= peakLimit, "\(what): peak RSS \(run.peakResidentBytes >> 20) MiB")
  }

  @Test func verifyReportsOneLimitLinePerBomb() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let bombs = try Self.bombs(in: scratch)
    let run = try runImgfetchMeasured(["verify"] + bombs.map(\.path))
    Self.expectBounded(run, "verify")
    // Issue 24.3: the reasons on standard error, and the count after them; nothing valid on stdout.
    let expected = bombs.map { "imgfetch: " + Self.limitLine($0.path, $0.type, $0.length) }
    #expect(run.result.stdout.isEmpty)
    let summary = "imgfetch: \(bombs.count) of \(bombs.count) items failed"
    #expect(run.result.stderrText.split(separator: "\n").map(String.init) == expected + [summary])
  }

  @Test func infoAndThumbnailReportOneLimitLinePerBombOnStderr() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let bombs = try Self.bombs(in: scratch)
    let expected = bombs.map { "imgfetch: " + Self.limitLine($0.path, $0.type, $0.length) }
    for command in [["info"], ["--thumbnail", "64"]] {
      let run = try runImgfetchMeasured(command + bombs.map(\.path))
      Self.expectBounded(run, "\(command)")
      // info prints an error object per file on stdout (issue 24.3); a thumbnail batch nothing.
      let objects = run.result.stdoutText.split(separator: "\n")
      #expect(command == ["info"] ? objects.count == bombs.count : objects.isEmpty, "\(command)")
      #expect(objects.allSatisfy { $0.hasPrefix("{\"source\":") && $0.contains("\"error\":") })
      // Every batch ends with the count of failed items (issue 12.5; info too since issue 24.3).
      let summary = ["imgfetch: \(bombs.count) of \(bombs.count) items failed"]
      #expect(run.result.stderrText.split(separator: "\n").map(String.init) == expected + summary, "\(command)")
    }
    // Nothing was written beside the bombs (no thumbnail, no temporary).
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).count == bombs.count)
  }

  @Test func decodeOfEachBombIsOneLineAndNoOutput() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let bombs = try Self.bombs(in: scratch)
    let output = scratch.appendingPathComponent("out.raw").path
    for bomb in bombs {
      let run = try runImgfetchMeasured(["decode", bomb.path, "-o", output])
      Self.expectBounded(run, "decode \(bomb.type)")
      #expect(run.result.stderrText == "imgfetch: " + Self.limitLine(bomb.path, bomb.type, bomb.length) + "\n")
      #expect(!FileManager.default.fileExists(atPath: output))
    }
  }

  @Test func fourBombsInAParallelThumbnailBatchStayBounded() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let bombs = try Self.bombs(in: scratch).filter { ["sCAL", "pCAL", "sPLT", "prVt"].contains($0.type) }
    let run = try runImgfetchMeasured(["--thumbnail", "64", "--jobs", "4"] + bombs.map(\.path))
    Self.expectBounded(run, "--jobs 4")
    #expect(run.result.stderrText.split(separator: "\n").count == bombs.count + 1)  // and "N of M items failed"
  }

  @Test func aFetchedBombIsALimitErrorAndIsNotCached() async throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let path = scratch.appendingPathComponent("bomb.png").path
    try Data(ChunkBombs.file("sCAL", claimedLength: 0x7fff_ffff)).write(to: URL(fileURLWithPath: path))
    let fixture = try await ParseFixture(files: ["bomb.png": path])
    let cache = scratch.appendingPathComponent("cache")
    let run = try runImgfetchMeasured([fixture.fileURL("bomb.png").absoluteString, "--cache-dir", cache.path])
    #expect(run.result.status == 4, "\(run.result.stderrText)")
    #expect(run.result.stderrText.split(separator: "\n").count == 1)
    #expect(run.result.stderrText.contains("PNG chunk sCAL is 2147483647 bytes, over the 8000000-byte chunk limit"))
    #expect(run.peakResidentBytes <= Self.peakLimit, "peak RSS \(run.peakResidentBytes >> 20) MiB")
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []
    // Nothing but transient files (a `.part`), as the cache's one classifier sees it.
    let kept = entries.filter {
      switch CacheFile(fileName: $0) {
      case .entry, .thumbnail: true
      default: false
      }
    }
    #expect(kept.isEmpty, "\(kept)")
  }

  /// Every bomb (each ancillary type at each length) as the file of a Parse object, fetched in one
  /// class walk four at a time, plain and with a thumbnail: one limit line each, exit 4, bounded
  /// memory, and nothing enters the cache.
  @Test func everyBombFetchedInAClassWalkIsALimitErrorAndIsNotCached() async throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let bombs = try Self.bombs(in: scratch)
    var files: [String: String] = [:]
    var objects: [[String: Any]] = []
    for (index, bomb) in bombs.enumerated() {
      let name = "\(bomb.type)-\(bomb.length).png"
      files[name] = bomb.path
      objects.append(ParseFixture.photo(String(format: "bomb%06d", index), ParseFixture.file(name)))
    }
    let fixture = try await ParseFixture(files: files, seed: ["classes": ["Photo": objects]])
    let cache = scratch.appendingPathComponent("cache")
    // Under AddressSanitizer its shadow memory and quarantine come on top.
    let limit = Fixtures.imgfetchIsAddressSanitized ? 160 << 20 : Self.peakLimit
    for thumbnail in [[], ["--thumbnail", "64"]] {
      let run = try runImgfetchMeasured(
        FetchCommandTests.arguments(
          fixture, cache: cache, ["--class", "Photo", "--column", "MainImage", "--jobs", "4"])
          + thumbnail)
      #expect(run.result.status == 4, "\(thumbnail): \(run.result.stderrText)")
      #expect(run.result.stdout.isEmpty)
      let lines = run.result.stderrText.split(separator: "\n").map(String.init)
      #expect(lines.count == bombs.count + 1 && lines.last == "imgfetch: \(bombs.count) of \(bombs.count) items failed")
      for bomb in bombs {
        let message = "PNG chunk \(bomb.type) is \(bomb.length) bytes, over the 8000000-byte chunk limit"
        #expect(lines.filter { $0.hasSuffix(message) && $0.contains("was not cached") }.count == 1, "\(message)")
      }
      #expect(run.peakResidentBytes <= limit, "\(thumbnail): peak RSS \(run.peakResidentBytes >> 20) MiB")
      let kept = ((try? FileManager.default.contentsOfDirectory(atPath: cache.path)) ?? []).filter {
        switch CacheFile(fileName: $0) {
        case .entry, .thumbnail: true
        default: false
        }
      }
      #expect(kept.isEmpty, "\(kept)")
    }
  }
}
