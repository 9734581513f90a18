import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import SystemFiles
import Testing

/// `imgfetch cache stats | clear | gc` touch only directories imgfetch made, and in them only the
/// files it made (issue 11, items 3 and 5).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct CacheCommandTests {
  func withDirectory(_ body: (URL) throws -> Void) throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try body(directory)
  }

  func names(_ directory: URL) throws -> Set<String> {
    Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
  }

  func write(_ bytes: Int, _ directory: URL, _ name: String, age: TimeInterval = 0) throws {
    let url = directory.appendingPathComponent(name)
    try Data(count: bytes).write(to: url)
    if age > 0 {
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
    }
  }

  @Test(arguments: ["clear", "gc", "stats"])
  func aDirectoryOfSomeoneElsesFilesIsRefusedAndLeftAlone(action: String) throws {
    try withDirectory { pictures in
      try write(10, pictures, "holiday.jpg", age: 200_000)
      try write(10, pictures, "notes.txt")
      try write(10, pictures, "IMG_0001.JPG")
      let result = try runImgfetch(["cache", action, "--cache-dir", pictures.path])
      #expect(result.status == 5)  // a file-system error
      #expect(
        result.stderrText
          == "imgfetch: \(pictures.path) is not an imgfetch cache (no CACHEDIR.TAG, and it holds other files); choose another cache directory\n"
      )
      #expect(result.stdout.isEmpty)
      #expect(try names(pictures) == ["holiday.jpg", "notes.txt", "IMG_0001.JPG"], "nothing removed, no tag added")
    }
  }

  @Test(arguments: ["stats", "clear", "gc"])
  func aMissingCacheIsReportedNotCreated(action: String) throws {
    try withDirectory { parent in
      let missing = parent.appendingPathComponent("never-made")
      let result = try runImgfetch(["cache", action, "--cache-dir", missing.path])
      #expect(result.status == 0)
      #expect(result.stdoutText == "no cache at \(missing.path)\n")
      #expect(!FileManager.default.fileExists(atPath: missing.path))
    }
  }

  @Test func statsGcAndClearCountAndRemoveOnlyTheCachesOwnFiles() throws {
    try withDirectory { directory in
      let cache = try DiskCache(directory: directory.path)
      // An entry from a URL ending `pic.tmpl` (11.5: gc deleted it, stats showed 0 B).
      let tmpl = CacheKey(url: "https://cdn.example/pic.tmpl").fileName
      try write(1000, directory, tmpl, age: 200_000)
      try write(500, directory, "photo.jpg", age: 200_000)
      try write(50, directory, "photo.jpg.thumb-64.jpg", age: 200_000)
      try write(70, directory, "other.png.part", age: 200_000)
      try write(30, directory, ".photo.jpg.thumb-64.jpg.tmp-4242-1x2y3z", age: 200_000)
      try write(9, directory, "README.TXT", age: 200_000)  // not a name the cache makes
      #expect(cache.statistics().entries == 2)

      let stats = try runImgfetch(["cache", "stats", "--json", "--cache-dir", directory.path])
      #expect(stats.status == 0)
      let object = try JSONSerialization.jsonObject(with: Data(stats.stdout)) as! [String: Any]
      #expect(object["entries"] as? Int == 2 && object["bytes"] as? Int == 1500)
      #expect(object["thumbnails"] as? Int == 1 && object["partialDownloads"] as? Int == 1)

      let gc = try runImgfetch(["cache", "gc", "--max-age", "0", "--cache-dir", directory.path])
      #expect(gc.status == 0)
      #expect(
        gc.stdoutText
          == "removed 1 partial download (70 B), 1 temporary file (30 B) from \(directory.path) (100 B in all)\n")
      #expect(try names(directory) == ["CACHEDIR.TAG", tmpl, "photo.jpg", "photo.jpg.thumb-64.jpg", "README.TXT"])

      let clear = try runImgfetch(["cache", "clear", "--cache-dir", directory.path])
      #expect(clear.status == 0)
      #expect(try names(directory) == ["CACHEDIR.TAG", "README.TXT"])
    }
  }

  /// Issue 23: every file the cache made goes with `clear`, lock files of killed downloads in
  /// `.locks` too (which `stats` counts), so a cache of imgfetch's own files is left holding its tag
  /// alone; a held lock (a download running now) and its `.part` stay.
  @Test func clearEmptiesACacheDownToItsTagFile() async throws {
    let (fixture, _) = try await CommandGrammarTests.onePhoto("testorig.jpg")
    try withDirectory { directory in
      let fetched = try runImgfetch(
        FetchCommandTests.arguments(
          fixture, cache: directory, ["Photo/aaaaaaaaaa", "--column", "MainImage", "--thumbnail", "32"]))
      #expect(fetched.status == 0, "\(fetched.stderrText)")
      // What killed runs leave: a download's lock file and `.part`, a thumbnail's temporary file.
      let locks = directory.appendingPathComponent(".locks")
      try write(0, locks, "killed.jpg.lock")
      try write(70, directory, "killed.jpg.part")
      try write(30, directory, ".killed.jpg.thumb-64.jpg.tmp-4242-1x2y3z")

      let stats = try runImgfetch(["cache", "stats", "--json", "--cache-dir", directory.path])
      let object = try JSONSerialization.jsonObject(with: Data(stats.stdout)) as! [String: Any]
      #expect(object["entries"] as? Int == 1 && object["thumbnails"] as? Int == 1)
      #expect(object["partialDownloads"] as? Int == 1 && object["temporaryFiles"] as? Int == 1)
      #expect(object["lockFiles"] as? Int == 1)
      let text = try runImgfetch(["cache", "stats", "--cache-dir", directory.path])
      #expect(text.stdoutText.contains("1 partial download (70 B), 1 temporary file (30 B), 1 lock file ("), "\(text.stdoutText)")

      // A download running now keeps its lock and `.part`.
      try write(10, directory, "running.jpg.part")
      let held = try #require(try FileLock.tryAcquire(locks.appendingPathComponent("running.jpg.lock").path))
      let busy = try runImgfetch(["cache", "clear", "--cache-dir", directory.path])
      #expect(busy.status == 0)
      #expect(try names(directory) == ["CACHEDIR.TAG", ".locks", "running.jpg.part"])
      #expect(try names(locks) == ["running.jpg.lock"])

      held.unlock()
      let clear = try runImgfetch(["cache", "clear", "--cache-dir", directory.path])
      #expect(clear.status == 0)
      #expect(
        clear.stdoutText == "removed 1 partial download (10 B) from \(directory.path) (10 B in all)\n",
        "\(clear.stdoutText)")
      #expect(try names(directory) == ["CACHEDIR.TAG"])
    }
  }
}
