import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

/// `--cache-max-size` and `cache gc --max-size` (issue 32): a class walk keeps its originals and
/// thumbnails within the budget, least recently used first, each original with its thumbnails; a
/// later run downloads only what was evicted; `stats` says what `clear` would remove.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct CacheBudgetTests {
  static let count = 12

  /// Class Photo: `count` objects, each its own stored copy of one PNG.
  static func server(count: Int = count) async throws -> ParseFixture {
    var files: [String: String] = [:]
    var objects: [[String: Any]] = []
    for index in 0..<count {
      let id = String(format: "p%09d", index)
      let name = "0123456789abcdef0123456789abcdef_\(id).png"
      files[name] = "basn2c08.png"
      objects.append(ParseFixture.photo(id, ParseFixture.file(name)))
    }
    return try await ParseFixture(files: files, seed: ["classes": ["Photo": objects]])
  }

  static func walk(_ fixture: ParseFixture, cache: URL, _ more: [String] = []) throws -> ProcessResult {
    try runImgfetch(
      [
        "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key",
        ParseFixture.restKey, "--cache-dir", cache.path, "--class", "Photo", "--column", "MainImage",
        "--thumbnail", "16", "--quiet",
      ] + more)
  }

  static func fileRequests(_ fixture: ParseFixture) async throws -> Int {
    var total = 0
    for index in 0..<count {
      let name = "0123456789abcdef0123456789abcdef_\(String(format: "p%09d", index)).png"
      total += try await fixture.requests("files/\(ParseFixture.appID)/\(name)")
    }
    return total
  }

  @Test func aClassWalkEndsWithinItsBudgetAndALaterRunDownloadsOnlyWhatWasEvicted() async throws {
    let fixture = try await Self.server()
    let unbounded = try Fixtures.temporaryDirectory()
    let bounded = try Fixtures.temporaryDirectory()
    defer {
      try? FileManager.default.removeItem(at: unbounded)
      try? FileManager.default.removeItem(at: bounded)
    }
    // Without a budget: every original and its thumbnail stay; that gives one item's bytes.
    let free = try Self.walk(fixture, cache: unbounded)
    #expect(free.status == 0, "\(free.stderrText)")
    let all = try DiskCache(directory: unbounded.path).budgetedSize()
    let perItem = all / Int64(Self.count)
    #expect(perItem * Int64(Self.count) == all, "the objects are copies of one file")

    // A budget of five and a half items, well below what the class takes.
    let budget = perItem * 11 / 2
    try await fixture.reset()
    let run = try Self.walk(fixture, cache: bounded, ["--cache-max-size", String(budget)])
    #expect(run.status == 0, "\(run.stderrText)")
    #expect(try await Self.fileRequests(fixture) == Self.count)
    let cache = try DiskCache(directory: bounded.path)
    let stats = cache.statistics()
    #expect(cache.budgetedSize() <= budget)
    #expect((1..<Self.count).contains(stats.entries), "\(stats)")
    #expect(stats.thumbnails == stats.entries, "an original is evicted with its thumbnail: \(stats)")
    #expect(stats.partialDownloads == 0 && stats.temporaryFiles == 0)

    // Without the budget, a second run downloads exactly the evicted originals; the rest are hits.
    try await fixture.reset()
    let again = try Self.walk(fixture, cache: bounded)
    #expect(again.status == 0, "\(again.stderrText)")
    #expect(try await Self.fileRequests(fixture) == Self.count - stats.entries)
  }

  /// A class of 10,000 objects through a budget of a few hundred of them: every object is
  /// fetched, validated and thumbnailed (one line each), and the cache ends within its budget, each
  /// kept original with its thumbnail, nothing partial left behind.
  @Test(.timeLimit(.minutes(10))) func tenThousandObjectsStayWithinTheBudget() async throws {
    let count = 10_000
    let fixture = try await Self.server(count: count)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let budget: Int64 = 1_000_000
    let run = try runProcess(
      Fixtures.productsDirectory.appendingPathComponent("imgfetch").path,
      [
        "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key",
        ParseFixture.restKey, "--cache-dir", cache.path, "--class", "Photo", "--column", "MainImage",
        "--thumbnail", "16", "--jobs", "4", "--cache-max-size", String(budget),
      ], limit: .seconds(540))
    #expect(run.status == 0, "\(run.stderrText.prefix(2000))")
    let lines = run.stdoutText.split(separator: "\n")
    #expect(lines.count == count)
    #expect(Set(lines.map { $0.split(separator: "\t").first ?? "" }).count == count, "one line per objectId")
    let disk = try DiskCache(directory: cache.path)
    let stats = disk.statistics()
    #expect(disk.budgetedSize() <= budget)
    #expect((100..<count).contains(stats.entries), "\(stats)")
    #expect(stats.thumbnails == stats.entries, "an original is evicted with its thumbnail: \(stats)")
    #expect(stats.partialDownloads == 0 && stats.temporaryFiles == 0)
  }

  @Test func gcEvictsTheLeastRecentlyUsedWithTheirThumbnailsDownToTheSize() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    _ = try DiskCache(directory: directory.path)
    func write(_ bytes: Int, _ name: String, usedHoursAgo hours: Double) throws {
      let url = directory.appendingPathComponent(name)
      try Data(count: bytes).write(to: url)
      let date = Date(timeIntervalSinceNow: -hours * 3600)
      try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
      // The access time is what hits move: set it as a hit `hours` ago would have.
      var times = [
        timespec(tv_sec: Int(date.timeIntervalSince1970), tv_nsec: 0),
        timespec(tv_sec: Int(date.timeIntervalSince1970), tv_nsec: 0),
      ]
      #expect(utimensat(AT_FDCWD, url.path, &times, 0) == 0)
    }
    try write(1000, "oldest.jpg", usedHoursAgo: 30)
    try write(100, "oldest.jpg.thumb-64.jpg", usedHoursAgo: 30)
    try write(1000, "middle.jpg", usedHoursAgo: 20)
    try write(100, "middle.jpg.thumb-64.jpg", usedHoursAgo: 2)  // its thumbnail was used lately
    try write(1000, "newest.jpg", usedHoursAgo: 10)
    try write(500, "README.txt", usedHoursAgo: 40)  // not the cache's: never counted or removed

    let gc = try runImgfetch(["cache", "gc", "--max-size", "2.5K", "--cache-dir", directory.path])
    #expect(gc.status == 0, "\(gc.stderrText)")
    #expect(
      gc.stdoutText
        == "removed 1 image (1.0 KB), 1 thumbnail (100 B) from \(directory.path) (1.1 KB in all)\n")
    let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
    #expect(
      left == ["CACHEDIR.TAG", "middle.jpg", "middle.jpg.thumb-64.jpg", "newest.jpg", "README.txt"])

    let stats = try runImgfetch(["cache", "stats", "--cache-dir", directory.path])
    #expect(
      stats.stdoutText
        == "\(directory.path): 2 images (2.0 KB), 1 thumbnail (100 B), 0 partial downloads, 0 temporary files, "
        + "0 lock files (2.1 KB in all)\n")
    let clear = try runImgfetch(["cache", "clear", "--cache-dir", directory.path])
    #expect(
      clear.stdoutText == "removed 2 images (2.0 KB), 1 thumbnail (100 B) from \(directory.path) (2.1 KB in all)\n")
  }

  @Test(arguments: [
    (["--cache-max-size", "lots"], "imgfetch: --cache-max-size needs a size such as 20G, 500M or 1.5Gi"),
    (["--cache-max-size", "0"], "imgfetch: --cache-max-size needs a size such as 20G, 500M or 1.5Gi"),
    (["cache", "stats", "--max-size", "1G"], "imgfetch: --max-size goes with cache gc"),
    (["cache", "gc", "--cache-max-size", "1G"], "imgfetch: --cache-max-size goes with fetches; cache gc takes --max-size"),
  ])
  func aBadSizeIsAUsageError(arguments: [String], message: String) throws {
    let result = try runImgfetch(arguments + (arguments.first == "cache" ? [] : ["https://127.0.0.1:9/x.png"]))
    #expect(result.status == 1, "\(result.status)")
    #expect(result.stderrText.hasPrefix(message), "\(result.stderrText)")
  }
}
