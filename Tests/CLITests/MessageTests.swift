import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

/// Issue 24.4: messages that name the fix. A missing size, an unknown command word and a misspelt
/// option each say what was meant; `--help` lists `--version`; counts agree with their nouns; a
/// column that holds no file is a data error (exit 4) named once per walk, with the count.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct MessageTests {
  static let photo = Fixtures.image("testorig.jpg")

  static func usage(_ message: String) -> String { "imgfetch: \(message) (see imgfetch --help)\n" }

  @Test func aMissingSizeAnUnknownWordAndAMisspeltOptionNameTheFix() throws {
    let noSize = try runImgfetch(["--thumbnail", Self.photo])
    #expect(noSize.status == 1 && noSize.stdout.isEmpty)
    #expect(
      noSize.stderrText == Self.usage("--thumbnail needs a size: N, WxH, Wx or xH, numbers from 1 to 65500 (got \(Self.photo))")
    )
    for (arguments, message) in [
      (["thumbnail", Self.photo], "thumbnail is neither a command nor a file; did you mean --thumbnail?"),
      (["--thumbnial", "64", Self.photo], "unknown option --thumbnial; did you mean --thumbnail?"),
      (["--thumbnial=64", Self.photo], "unknown option --thumbnial; did you mean --thumbnail?"),
      (["verfy", Self.photo], "verfy is neither a command nor a file; did you mean verify?"),
      (["version"], "version is neither a command nor a file; did you mean --version?"),
      (["info", Self.photo, "--jsno"], "unknown option --jsno; did you mean --json?"),
      ([Self.photo, "--bogus"], "unknown option --bogus"),  // close to nothing: no guess
      (["cache", "claer"], "cache needs one of: stats, clear, gc (got claer; did you mean clear?)"),
    ] {
      let result = try runImgfetch(arguments)
      #expect(result.status == 1 && result.stdout.isEmpty, "\(arguments)")
      #expect(result.stderrText == Self.usage(message), "\(arguments)")
    }
    // A file named like a command word is a file.
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    try FileManager.default.copyItem(atPath: Self.photo, toPath: scratch.appendingPathComponent("thumbnail").path)
    let file = try runProcess(
      "/bin/sh",
      ["-c", "cd '\(scratch.path)' && '\(Fixtures.productsDirectory.path)/imgfetch' thumbnail"])
    #expect(file.status == 0 && file.stdoutText == "thumbnail\n", "\(file.stderrText)")
    // Nothing at all still says so.
    #expect(try runImgfetch([]).stderrText == Self.usage("nothing to do"))
    #expect(try runImgfetch(["--jobs", "2"]).stderrText == Self.usage("nothing to fetch: give SOURCE... or --class C"))
  }

  @Test func helpListsVersionAndEveryCommand() throws {
    let help = try runImgfetch(["--help"])
    #expect(help.status == 0 && help.stderr.isEmpty)
    let lines = help.stdoutText.components(separatedBy: "\n")
    #expect(lines.contains { $0.hasPrefix("  --version ") && $0.hasSuffix("print the version and exit") })
    #expect(lines.contains { $0.hasPrefix("  -h, --help ") })
    for command in ["info FILE...", "decode FILE", "verify FILE...", "cache stats|clear|gc"] {
      #expect(lines.contains { $0.hasPrefix("  imgfetch \(command)") }, "\(command)")
    }
  }

  /// `cache stats`, `clear` and `gc` on real cache directories: what they found or removed, by
  /// kind, with the bytes, in the singular for one file; on standard output, as results.
  @Test func cacheCommandsSayWhatTheyRemovedByKind() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    _ = try DiskCache(directory: directory.path)
    func write(_ bytes: Int, _ name: String) throws {
      let url = directory.appendingPathComponent(name)
      try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(count: bytes).write(to: url)
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSinceNow: -200_000)], ofItemAtPath: url.path)
    }
    try write(1000, "photo.jpg")
    try write(2000, "other.png")
    try write(50, "photo.jpg.thumb-64.jpg")
    try write(70, "killed.jpg.part")
    try write(30, ".photo.jpg.thumb-64.jpg.tmp-4242-1x2y3z")
    try write(0, ".locks/killed.jpg.lock")
    let arguments = ["--cache-dir", directory.path]
    let stats = try runImgfetch(["cache", "stats"] + arguments)
    #expect(stats.status == 0 && stats.stderr.isEmpty)
    #expect(
      stats.stdoutText
        == "\(directory.path): 2 images (3.0 KB), 1 thumbnail (50 B), 1 partial download (70 B), 1 temporary file (30 B), "
        + "1 lock file (3.2 KB in all)\n")
    let gc = try runImgfetch(["cache", "gc", "--max-age", "3600"] + arguments)
    #expect(gc.status == 0 && gc.stderr.isEmpty)
    #expect(
      gc.stdoutText
        == "removed 1 partial download (70 B), 1 temporary file (30 B), 1 lock file from \(directory.path) (100 B in all)\n"
    )
    let again = try runImgfetch(["cache", "gc", "--json"] + arguments)
    #expect(
      again.stdoutText
        == "{\"directory\":\"\(directory.path)\",\"action\":\"gc\",\"removedEntries\":0,\"removedThumbnails\":0,"
        + "\"removedPartialDownloads\":0,\"removedTemporaryFiles\":0,\"removedLockFiles\":0,\"removedBytes\":0}\n")
    let clear = try runImgfetch(["cache", "clear"] + arguments)
    #expect(clear.status == 0 && clear.stderr.isEmpty)
    #expect(
      clear.stdoutText == "removed 2 images (3.0 KB), 1 thumbnail (50 B) from \(directory.path) (3.1 KB in all)\n")
    let empty = try runImgfetch(["cache", "clear"] + arguments)
    #expect(empty.stdoutText == "nothing to remove in \(directory.path)\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["CACHEDIR.TAG"])
  }

  /// A Parse column that holds a string or a number is the data's fault: exit 4 (as an invalid
  /// image, which retrying does not fix), not 3, with the column and what it holds; in a walk, said
  /// once with the count. A misspelt column likewise, once, with the fix.
  @Test func aColumnThatHoldsNoFileIsADataErrorSaidOnce() async throws {
    let ids = ["a000000000", "b000000000", "c000000000", "d000000000", "e000000000"]
    var objects = ids.map { ParseFixture.photo($0, "a caption") }
    objects.append(ParseFixture.photo("n000000000", 42))
    let fixture = try await ParseFixture(files: [:], seed: ["classes": ["Photo": objects]])
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let one = try runImgfetch(
      ClassWalkTests.arguments(fixture, cache: cache, ["Photo/n000000000", "--column", "MainImage"]))
    #expect(one.status == 4 && one.stdout.isEmpty)
    #expect(one.stderrText == "imgfetch: Photo/n000000000: column MainImage is not a file (found a number)\n")
    let string = try runImgfetch(
      ClassWalkTests.arguments(fixture, cache: cache, ["Photo/a000000000", "--column", "MainImage", "--json"]))
    #expect(string.status == 4)
    #expect(
      string.stdoutText
        == "{\"source\":\"Photo/a000000000\",\"objectId\":\"a000000000\",\"error\":\"Photo/a000000000: column MainImage is not a file (found a string)\"}\n"
    )

    let walk = try runImgfetch(
      ClassWalkTests.arguments(fixture, cache: cache, ["--class", "Photo", "--column", "MainImage", "--json"]))
    #expect(walk.status == 4)
    #expect(
      walk.stderrText
        == "imgfetch: Photo: column MainImage is not a file in 5 of 6 objects (found a string: a000000000, b000000000, c000000000, …)\n"
        + "imgfetch: Photo: column MainImage is not a file in 1 of 6 objects (found a number: n000000000)\n"
        + "imgfetch: 6 of 6 items failed\n")
    // Every object still has its own JSON object with its error.
    let lines = walk.stdoutText.split(separator: "\n")
    #expect(lines.count == 6 && lines.allSatisfy { $0.contains("\"error\":\"Photo/") && $0.contains("is not a file") })

    let misspelt = try runImgfetch(
      ClassWalkTests.arguments(fixture, cache: cache, ["--class", "Photo", "--column", "MainImgae"]))
    #expect(misspelt.status == 4 && misspelt.stdout.isEmpty)
    #expect(
      misspelt.stderrText
        == "imgfetch: Photo: column MainImgae is missing in 6 of 6 objects (a000000000, b000000000, c000000000, …); "
        + "check the column name, or add {\"MainImgae\":{\"$exists\":true}} to --where to skip objects without it\n"
        + "imgfetch: 6 of 6 items failed\n")
    // A walk of one object counts in the singular.
    let single = try runImgfetch(
      ClassWalkTests.arguments(
        fixture, cache: cache, ["--class", "Photo", "--column", "Nope", "--where", "{\"MainImage\":42}"]))
    #expect(
      single.stderrText.hasSuffix(
        "in 1 of 1 object (n000000000); check the column name, or add {\"Nope\":{\"$exists\":true}} to --where to skip objects without it\nimgfetch: 1 of 1 item failed\n"
      ), "\(single.stderrText)")
  }
}
