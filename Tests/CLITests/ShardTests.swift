import FixtureSupport
import Foundation
import ParseFixtureSupport
import Testing

/// `--shard K/N` over a class run as a scale-out would run it: N processes of the binary against the
/// fixture Parse Server, which counts the rows it sends (issue 12.9).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ShardTests {
  static let size = 200

  static func server() async throws -> (ParseFixture, [String]) {
    let objects = ParseFixture.randomPhotos(size)
    var files: [String: String] = [:]
    for object in objects {
      files[(object["MainImage"] as! [String: Any])["name"] as! String] = "basn0g02.png"
    }
    // maxLimit: the server cuts pages to 64 rows, so every shard pages several times.
    let fixture = try await ParseFixture(files: files, seed: ["classes": ["Photo": objects], "maxLimit": 64])
    return (fixture, objects.map { $0["objectId"] as! String })
  }

  /// Runs shards 1…count of a class with `--json` and returns the objectIds each printed.
  static func runShards(_ count: Int, mode: String?, fixture: ParseFixture, cache: URL) throws -> [[String]] {
    try (1...count).map { k in
      var arguments = [
        "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key",
        ParseFixture.restKey, "--cache-dir", cache.path, "--class", "Photo", "--column", "MainImage", "--json",
        "--jobs", "4", "--shard", "\(k)/\(count)",
      ]
      if let mode { arguments += ["--shard-mode", mode] }
      let result = try runImgfetch(arguments)
      #expect(result.status == 0, "shard \(k)/\(count): \(result.stderrText)")
      return try result.stdoutText.split(separator: "\n").map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        return object["objectId"] as! String
      }
    }
  }

  /// 1 to 8 shards in range mode cover the class exactly once, and together the server sent each
  /// row once: N shards cost the server what one walk costs.
  @Test func rangeShardsCoverTheClassOnceAndReadEachRowOnce() async throws {
    let (fixture, ids) = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    for count in 1...8 {
      let before = try await fixture.rowsSent("classes/Photo")
      let shards = try Self.runShards(count, mode: nil, fixture: fixture, cache: cache)
      let seen = shards.flatMap { $0 }
      #expect(seen.count == ids.count && Set(seen) == Set(ids), "\(count) shards")
      let rows = try await fixture.rowsSent("classes/Photo") - before
      #expect(rows == Self.size, "\(count) shards made the server send \(rows) rows")
    }
  }

  /// Hash mode (for custom ids) still covers the class exactly once, at N times the reading.
  @Test func hashShardsCoverTheClassOnceAndReadItNTimes() async throws {
    let (fixture, ids) = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let shards = try Self.runShards(3, mode: "hash", fixture: fixture, cache: cache)
    let seen = shards.flatMap { $0 }
    #expect(seen.count == ids.count && Set(seen) == Set(ids))
    #expect(try await fixture.rowsSent("classes/Photo") == 3 * Self.size)
  }

  /// The progress total of a range shard is its own slice's count, reached at the end.
  @Test func aRangeShardsProgressTotalIsItsSlice() async throws {
    let (fixture, _) = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let result = try runImgfetch([
      "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key",
      ParseFixture.restKey, "--cache-dir", cache.path, "--class", "Photo", "--column", "MainImage", "--json",
      "--shard", "2/3", "--progress", "always",
    ])
    #expect(result.status == 0)
    let walked = result.stdoutText.split(separator: "\n").count
    let figures = ClassWalkTests.itemFigures(result.stderrText)
    #expect(figures.last?.done == walked && figures.last?.total == walked, "\(walked): \(figures.suffix(2))")
  }

  /// A server that orders objectIds case-insensitively (PostgreSQL with a linguistic collation) would
  /// hand out overlapping slices; a shard that receives an id outside its bytewise slice fails, so
  /// range shards either cover the class exactly once or say why not. One shard has no bounds and
  /// works on any server.
  @Test func aCaseInsensitiveServerMakesRangeShardsFailLoudly() async throws {
    let objects = ParseFixture.randomPhotos(Self.size)
    var files: [String: String] = [:]
    for object in objects { files[(object["MainImage"] as! [String: Any])["name"] as! String] = "basn0g02.png" }
    let fixture = try await ParseFixture(
      files: files, seed: ["classes": ["Photo": objects], "maxLimit": 64, "collation": "caseInsensitive"])
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let whole = try Self.runShards(1, mode: nil, fixture: fixture, cache: cache)
    #expect(Set(whole.flatMap { $0 }) == Set(objects.map { $0["objectId"] as! String }))
    var failures: [String] = []
    for k in 1...3 {
      let result = try runImgfetch([
        "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key",
        ParseFixture.restKey, "--cache-dir", cache.path, "--class", "Photo", "--column", "MainImage", "--json",
        "--shard", "\(k)/3",
      ])
      if result.status != 0 { failures.append(result.stderrText) }
    }
    #expect(!failures.isEmpty)
    #expect(
      failures.allSatisfy {
        $0.contains("class Photo: the server sent objectId") && $0.contains("outside this shard's slice")
      })
  }

  /// A list of local files is split by hash too, into the same shards whether the run holds only
  /// local files (validated without the fetcher) or a URL as well (the fetch path): both ways of
  /// running a list must split it alike.
  @Test func aListOfLocalFilesIsSplitByHashAloneOrBesideAURL() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let files = try (0..<12).map { n in
      let path = scratch.appendingPathComponent("photo-\(n).png").path
      try FileManager.default.copyItem(atPath: Fixtures.image("basn0g02.png"), toPath: path)
      return path
    }
    var seen: [String] = []
    for k in 1...3 {
      let shard = try runImgfetch(["--shard", "\(k)/3"] + files)
      #expect(shard.status == 0, "shard \(k)/3: \(shard.stderrText)")
      let printed = shard.stdoutText.split(separator: "\n").map(String.init)
      #expect(printed.count < files.count, "shard \(k)/3 printed every file")
      seen += printed
      // An unreachable URL among them: its error goes to stderr, the same files' lines to stdout (as
      // they finish rather than in the order given).
      let mixed = try runImgfetch(
        ["--shard", "\(k)/3", "--retries", "0", "--cache-dir", scratch.path + "/cache", "http://127.0.0.1:9/x.jpg"]
          + files)
      #expect(
        mixed.stdoutText.split(separator: "\n").map(String.init).sorted() == printed.sorted(),
        "shard \(k)/3 beside a URL")
    }
    #expect(seen.sorted() == files.sorted())
  }

  @Test func aBadShardModeIsAUsageError() throws {
    for arguments in [
      ["--class", "Photo", "--column", "x", "--shard", "1/2", "--shard-mode", "modulo"],
      ["--class", "Photo", "--column", "x", "--shard-mode", "hash"],
    ] {
      let result = try runImgfetch(
        arguments, environment: ["PARSE_SERVER_URL": "http://127.0.0.1:9/parse", "PARSE_APPLICATION_ID": "x"])
      #expect(result.status == 1, "\(arguments)")
      #expect(result.stderrText.contains("--shard-mode"), "\(arguments)")
    }
  }
}
