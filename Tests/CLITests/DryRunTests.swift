import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

/// `--dry-run` (issue 32): says what a run would download, write or remove, and does none of it,
/// run as a user runs it (real files, the fixture Parse Server counting requests).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct DryRunTests {
  static let name = "0123456789abcdef0123456789abcdef_landscape.jpg"

  /// Every file's name, size and modification time under a folder (the folder's own too).
  static func snapshot(_ directory: String) throws -> [String: [Int]] {
    var state: [String: [Int]] = [:]
    let enumerator = FileManager.default.enumerator(atPath: directory)
    while let name = enumerator?.nextObject() as? String {
      let attributes = try FileManager.default.attributesOfItem(atPath: directory + "/" + name)
      let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
      state[name] = [(attributes[.size] as? Int) ?? -1, Int(modified * 1000)]
    }
    return state
  }

  func json(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
  }

  /// Local files: each thumbnail it would write (or finds up to date), nothing written, no output
  /// folder made.
  @Test func localFilesAreDescribedAndNothingIsWritten() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let photo = directory + "/photo.jpg"
      let logo = directory + "/logo.png"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: photo)
      try FileManager.default.copyItem(atPath: Fixtures.image("basn6a08.png"), toPath: logo)
      #expect(try runImgfetch(["--thumbnail", "64", photo]).status == 0)
      let before = try Self.snapshot(directory)
      let run = try runImgfetch(["--thumbnail", "64,128", "--dry-run", photo, logo])
      #expect(run.status == 0, "\(run.stderrText)")
      #expect(
        run.stdoutText == """
          up to date: \(photo).thumb-64.jpg from \(photo)
          would write \(photo).thumb-128.jpg (128x85) from \(photo)
          would write \(logo).thumb-64.png (32x32) from \(logo)
          would write \(logo).thumb-128.png (32x32) from \(logo)

          """)
      let json = try runImgfetch(["--thumbnail", "64", "--dry-run", "--json", "--output-dir", directory + "/out", logo])
      #expect(json.status == 0, "\(json.stderrText)")
      let object = try #require(try self.json(json.stdoutText).first)
      #expect(object["action"] as? String == "write" && object["dryRun"] as? Bool == true)
      #expect(object["path"] as? String == directory + "/out/logo.png.thumb-64.png")
      let validate = try runImgfetch(["--dry-run", photo])
      #expect(validate.status == 0 && validate.stdoutText == "would validate \(photo)\n")
      let quiet = try runImgfetch(["--dry-run", "--quiet", "--thumbnail", "64", photo])
      #expect(quiet.status == 0 && quiet.stdout.isEmpty)
      #expect(try Self.snapshot(directory) == before)
    }
  }

  /// Bad arguments fail as a real run's do (exit 1, the same message), before anything.
  @Test(arguments: [["--thumbnail", "0"], ["--thumbnail", "64", "-o", "a.gif"], ["--fit", "cover"]])
  func badArgumentsExitAsARealRun(arguments: [String]) throws {
    let source = Fixtures.image("Landscape_1.jpg")
    let real = try runImgfetch(arguments + [source])
    let dry = try runImgfetch(arguments + ["--dry-run", source])
    #expect(real.status == 1 && dry.status == 1)
    #expect(dry.stderrText == real.stderrText)
  }

  /// Downloads: a dry run sends no request at all (the object is named, not queried) and makes no
  /// cache; a cached download is said to be cached, its thumbnail up to date.
  @Test func downloadsSendNoRequestAndWriteNothing() async throws {
    let fixture = try await ParseFixture(
      files: [Self.name: "Landscape_1.jpg"],
      seed: ["classes": ["Photo": [ParseFixture.photo("aaaaaaaaaa", ParseFixture.file(Self.name))]]])
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let cache = scratch.path + "/cache"
    let fileRoute = "files/\(ParseFixture.appID)/\(Self.name)"
    let url = fixture.baseURL.absoluteString + (fixture.baseURL.absoluteString.hasSuffix("/") ? "" : "/") + fileRoute
    let parse = [
      "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key", ParseFixture.restKey,
      "--cache-dir", cache, "--thumbnail", "64",
    ]
    let object = try runImgfetch(parse + ["Photo/aaaaaaaaaa", "--column", "MainImage", "--dry-run"])
    #expect(object.status == 0, "\(object.stderrText)")
    #expect(object.stdoutText == "would query Photo/aaaaaaaaaa and download its file unless it is cached\n")
    let walk = try runImgfetch(parse + ["--class", "Photo", "--column", "MainImage", "--dry-run"])
    #expect(walk.status == 0, "\(walk.stderrText)")
    let cold = try runImgfetch(parse + [url, "--dry-run", "--json"])
    #expect(cold.status == 0, "\(cold.stderrText)")
    let planned = try #require(try json(cold.stdoutText).first)
    #expect(planned["action"] as? String == "download")
    #expect(!FileManager.default.fileExists(atPath: cache))
    #expect(try await fixture.requests("classes/Photo/aaaaaaaaaa") == 0)
    #expect(try await fixture.requests("classes/Photo") == 0)
    #expect(try await fixture.requests(fileRoute) == 0)

    let real = try runImgfetch(parse + [url, "--json"])
    #expect(real.status == 0, "\(real.stderrText)")
    let made = try #require(try json(real.stdoutText).first)
    let entry = try #require(made["cachePath"] as? String)
    #expect(planned["path"] as? String == entry)
    let warm = try runImgfetch(parse + [url, "--dry-run"])
    #expect(warm.status == 0, "\(warm.stderrText)")
    #expect(warm.stdoutText == "cached: \(url) as \(entry)\nup to date: \(entry).thumb-64.jpg from \(entry)\n")
    #expect(try await fixture.requests(fileRoute) == 1, "only the real run's")
  }

  /// `cache clear --dry-run` and `cache gc --max-size 0 --dry-run` say what they would remove (what
  /// the real command then removes) and remove nothing.
  @Test func cacheClearAndGCSayWhatTheyWouldRemove() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let cache = directory + "/cache"
      _ = try DiskCache(directory: cache)  // made and tagged as imgfetch's
      let entry = cache + "/" + Self.name
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: entry)
      #expect(try runImgfetch(["--thumbnail", "64", entry]).status == 0)
      try Data([1, 2, 3]).write(to: URL(fileURLWithPath: entry + ".part"))
      let before = try Self.snapshot(cache)
      let gc = try runImgfetch([
        "cache", "gc", "--max-size", "0", "--max-age", "0", "--dry-run", "--json", "--cache-dir", cache,
      ])
      #expect(gc.status == 0, "\(gc.stderrText)")
      let wouldGC = try #require(try json(gc.stdoutText).first)
      #expect(wouldGC["dryRun"] as? Bool == true)
      #expect(wouldGC["removedEntries"] as? Int == 1 && wouldGC["removedThumbnails"] as? Int == 1)
      #expect(wouldGC["removedPartialDownloads"] as? Int == 1)
      let clear = try runImgfetch(["cache", "clear", "--dry-run", "--json", "--cache-dir", cache])
      let wouldClear = try #require(try json(clear.stdoutText).first)
      #expect(try Self.snapshot(cache) == before)
      let plain = try runImgfetch(["cache", "clear", "--dry-run", "--cache-dir", cache])
      #expect(plain.stdoutText.hasPrefix("would remove 1 image"), "\(plain.stdoutText)")
      let real = try runImgfetch(["cache", "clear", "--json", "--cache-dir", cache])
      let removed = try #require(try json(real.stdoutText).first)
      for key in ["removedEntries", "removedThumbnails", "removedPartialDownloads", "removedBytes"] {
        #expect(removed[key] as? Int == wouldClear[key] as? Int, "\(key)")
      }
      let stats = try runImgfetch(["cache", "stats", "--dry-run", "--cache-dir", cache])
      #expect(stats.status == 1 && stats.stderrText.contains("--dry-run goes with cache clear or gc"))
    }
  }
}
