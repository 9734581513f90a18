import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

/// One grammar, one JSON shape and one set of exit codes for every kind of source, in both
/// kinds of command (local work loads no networking; the network's loads libcurl on its first request).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct CommandGrammarTests {
  /// A fixture server whose class `Photo` holds one object, `aaaaaaaaaa`, with `image` (a fixture
  /// image) stored under a Parse-style name in its `MainImage` column; and that stored name.
  static func onePhoto(_ image: String) async throws -> (ParseFixture, String) {
    let name = "0123456789abcdef0123456789abcdef_\(image)"
    let fixture = try await ParseFixture(
      files: [name: image], seed: ["classes": ["Photo": [ParseFixture.photo("aaaaaaaaaa", ParseFixture.file(name))]]])
    return (fixture, name)
  }

  static func objects(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
  }

  static let successKeys: Set = ["source", "width", "height", "storedWidth", "storedHeight", "format", "bytes"]
  static let thumbnailKeys: Set = ["thumbnailPath", "thumbnailWidth", "thumbnailHeight", "reused"]
  static let downloadKeys: Set = ["cachePath", "cacheHit"]

  @Test func aLocalFileIsASourceWithOptionsInAnyOrder() throws {
    let file = Fixtures.image("basn2c08.png")
    let plain = try runImgfetch([file])
    #expect(plain.status == 0 && plain.stdoutText == file + "\n" && plain.stderr.isEmpty)
    #expect(try runImgfetch(["--quiet", file]).stdoutText.isEmpty)
    #expect(try runImgfetch([file, "--quiet"]).status == 0)
    let json = try runImgfetch([file, "--json", "--jobs", "1", "--progress", "never"])
    #expect(try Self.objects(json.stdoutText).first?["width"] as? Int == 32)
    let broken = try runImgfetch([Fixtures.image("truncated_jpeg.jpg")])
    #expect(broken.status == 4 && broken.stdout.isEmpty)
    #expect(!broken.stderrText.contains("items failed"))  // one item is not a batch
  }

  @Test func aMisspeltOptionIsNamedWhateverTheSources() throws {
    for arguments in [
      ["Photo/abc", "--column", "image", "--bogus"], ["--bogus", "photo.jpg"],
      ["https://example.com/a.jpg", "--bogus"],
    ] {
      let result = try runImgfetch(arguments)
      #expect(result.status == 1)
      #expect(result.stderrText == "imgfetch: unknown option --bogus (see imgfetch --help)\n", "\(arguments)")
    }
    let stray = try runImgfetch(["info", Fixtures.image("basn2c08.png"), "--thumbnail", "64"])
    #expect(stray.status == 1 && stray.stderrText.contains("--thumbnail does not apply to info"))
    #expect(try runImgfetch(["decode", Fixtures.image("basn2c08.png"), "--raw"]).status == 1)  // removed
  }

  @Test func everySourceKindPrintsTheSameSchema() async throws {
    let (fixture, name) = try await Self.onePhoto("Landscape_1.jpg")
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    _ = try DiskCache(directory: cache.path)  // made (and tagged) first: the local source goes into it
    let local = cache.appendingPathComponent("Landscape_1.jpg").path
    try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: local)
    let common = FetchCommandTests.arguments(fixture, cache: cache, ["--column", "MainImage", "--json"])
    let runs: [(String, [String])] = [
      ("local", [local]), ("url", [fixture.fileURL(name).absoluteString]), ("object", ["Photo/aaaaaaaaaa"]),
      ("class", ["--class", "Photo"]),
    ]
    for thumbnail in [[], ["--thumbnail", "64"]] {
      for (kind, sources) in runs {
        let result = try runImgfetch(common + sources + thumbnail)
        #expect(result.status == 0, "\(kind): \(result.stderrText)")
        let object = try #require(try Self.objects(result.stdoutText).first, "\(kind)")
        var expected = Self.successKeys
        if kind != "local" { expected.formUnion(Self.downloadKeys) }
        if kind == "object" || kind == "class" { expected.insert("objectId") }
        if !thumbnail.isEmpty { expected.formUnion(Self.thumbnailKeys) }
        #expect(Set(object.keys) == expected, "\(kind) \(thumbnail)")
        // The original's size, whatever the source and with or without a thumbnail.
        #expect(object["width"] as? Int == 1800 && object["height"] as? Int == 1200, "\(kind)")
        #expect(object["format"] as? String == "jpeg" && object["bytes"] as? Int == 347327, "\(kind)")
        if !thumbnail.isEmpty { #expect(object["thumbnailWidth"] as? Int == 64, "\(kind)") }
      }
    }
  }

  @Test func exitCodesSayWhatFailed() async throws {
    let fixture = try await FetchCommandTests.server(withBrokenItem: false)
    let scratch = try Fixtures.temporaryDirectory()
    defer {
      chmod(scratch.path, 0o755)
      try? FileManager.default.removeItem(at: scratch)
    }
    // A local file-system failure: exit 5 with the path and the system's reason.
    let readOnly = scratch.appendingPathComponent("read-only")
    try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
    chmod(readOnly.path, 0o555)
    defer { chmod(readOnly.path, 0o755) }
    // As root (CI containers), without capabilities: root's CAP_DAC_OVERRIDE would write anyway.
    let decode = ["decode", Fixtures.image("basn2c08.png"), "-o", readOnly.path + "/x.raw"]
    let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let denied =
      getuid() == 0
      ? try runProcess("/usr/bin/setpriv", ["--inh-caps=-all", "--bounding-set=-all", imgfetch] + decode)
      : try runImgfetch(decode)
    #expect(denied.status == 5, "\(denied.stderrText)")
    #expect(denied.stderrText.contains(readOnly.path) && denied.stderrText.contains("Permission denied"))
    #expect(!FileManager.default.fileExists(atPath: readOnly.path + "/x.raw"))
    let missing = try runImgfetch(["verify", scratch.path + "/nothing.png"])
    #expect(missing.status == 5)
    let blocker = scratch.appendingPathComponent("a-file")
    try Data("x".utf8).write(to: blocker)
    let noCache = try runImgfetch(
      FetchCommandTests.arguments(
        fixture, cache: blocker.appendingPathComponent("cache"), ["Photo/aaaaaaaaaa", "--column", "MainImage"]))
    #expect(noCache.status == 5, "\(noCache.stderrText)")
    #expect(noCache.stderrText.contains(blocker.path) && !noCache.stderrText.contains("NSCocoaErrorDomain"))
    // An invalid --where is a usage error before any request.
    let cache = scratch.appendingPathComponent("cache")
    let badWhere = try runImgfetch(
      FetchCommandTests.arguments(
        fixture, cache: cache, ["--class", "Photo", "--column", "MainImage", "--where", "{nope"]))
    #expect(badWhere.status == 1 && badWhere.stderrText.contains("--where must be a JSON object"))
    #expect(try await fixture.requests("classes/Photo") == 0)
    // One item that failed exits with its own code, not "some failed".
    let notFound = try runImgfetch(
      FetchCommandTests.arguments(fixture, cache: cache, ["Photo/nonexisten", "--column", "MainImage"]))
    #expect(notFound.status == 4)  // a deleted object is data: retrying does not help
    // An empty class says so.
    let empty = try runImgfetch(
      FetchCommandTests.arguments(fixture, cache: cache, ["--class", "Nope", "--column", "MainImage"]))
    #expect(empty.status == 0)
    #expect(
      empty.stderrText
        == "imgfetch: Nope: no objects (Parse says the same of a class that does not exist: check the name, which is case-sensitive)\n")
    // Closed standard output is a file-system failure, not an invalid image.
    let closed = try runProcess(
      "/bin/sh", ["-c", "'\(Fixtures.productsDirectory.path)/imgfetch' decode '\(Fixtures.image("basn2c08.png"))' >&-"])
    #expect(closed.status == 5 && closed.stderrText.contains("cannot write to standard output"))
  }

  /// Results that cannot be written (standard output closed, or a full device) are lost: the run
  /// exits 5 with the reason instead of 0, for local files, info, verify, a fetched object and the cache's stats. A
  /// reader that stops reading (`| head`) is not an error.
  @Test func resultsThatCannotBeWrittenExitFive() async throws {
    let (fixture, _) = try await Self.onePhoto("basn2c08.png")
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let png = Fixtures.image("basn2c08.png")
    let object = FetchCommandTests.arguments(fixture, cache: cache, ["Photo/aaaaaaaaaa", "--column", "MainImage"])
    let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let quoted = { (arguments: [String]) in ([imgfetch] + arguments).map { "'\($0)'" }.joined(separator: " ") }
    let stats = ["cache", "stats", "--cache-dir", cache.path]
    for arguments in [
      [png], ["info", png], ["verify", png], [png, png, "--json"], object, object + ["--json"], stats,
    ] {
      for (redirect, reason) in [(">&-", "Bad file descriptor"), (">/dev/full", "No space left on device")] {
        let run = try runProcess("/bin/sh", ["-c", quoted(arguments) + " " + redirect])
        #expect(run.status == 5, "\(arguments) \(redirect): \(run.stderrText)")
        #expect(
          run.stderrText.hasSuffix("imgfetch: cannot write to standard output: \(reason)\n"),
          "\(arguments) \(redirect): \(run.stderrText)")
      }
    }
    let files = Array(repeating: png, count: 200)
    let headed = try runProcess(
      "/bin/bash", ["-c", quoted(["info"] + files) + " | head -c 1 >/dev/null; exit ${PIPESTATUS[0]}"])
    #expect(headed.status == 0 && headed.stderr.isEmpty, "\(headed.stderrText)")
  }

  /// Commands without network never load networking (libcurl, Foundation's networking, ICU); a URL
  /// loads libcurl for its request, and still no Foundation networking or ICU (issue 23).
  @Test func localCommandsLoadNoNetworking() throws {
    let png = Fixtures.image("basn2c08.png")
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let copy = scratch.appendingPathComponent("photo.jpg").path
    try FileManager.default.copyItem(atPath: Fixtures.image("testorig.jpg"), toPath: copy)
    for arguments in [
      ["verify", png], ["info", png], ["decode", png, "-o", scratch.path + "/p.raw"], [png],
      ["--thumbnail", "32", copy],
    ] {
      let result = try runImgfetch(arguments, environment: ["LD_DEBUG": "libs"])
      #expect(result.status == 0, "\(arguments)")
      let loaded = result.stderrText.split(separator: "\n").filter { $0.contains("calling init:") }
      #expect(!loaded.isEmpty)
      for library in ["libFoundationNetworking", "libcurl", "libicu", "_FoundationICU", "libFoundation.so"] {
        #expect(!loaded.contains { $0.contains(library) }, "\(arguments) loads \(library)")
      }
    }
    // A URL loads libcurl for its request, in the same process.
    let url = try runImgfetch(
      ["http://127.0.0.1:9/x.jpg", "--retries", "0", "--cache-dir", scratch.path + "/cache"],
      environment: ["LD_DEBUG": "libs"])
    #expect(url.status == 3)
    let loaded = url.stderrText.split(separator: "\n").filter { $0.contains("calling init:") }
    #expect(loaded.contains { $0.contains("libcurl.so") }, "a request loads libcurl")
    for library in ["libFoundationNetworking", "libicu", "_FoundationICU", "libFoundation.so"] {
      #expect(!loaded.contains { $0.contains(library) }, "a request loads \(library)")
    }
    #expect(url.stderrText.contains("imgfetch: http://127.0.0.1:9/x.jpg: could not download"), "\(url.stderrText)")
  }

  /// Issue 12.8: limits in the units given, "over a limit" for an image over one, the real version
  /// in every request's User-Agent.
  @Test func messagesStateLimitsInTheirUnitsAndRequestsCarryTheVersion() async throws {
    let png = Fixtures.image("basn2c08.png")
    let local = try runImgfetch(["verify", "--max-pixels", "1000", png])
    #expect(local.status == 4 && local.stdout.isEmpty)
    #expect(
      local.stderrText
        == "imgfetch: \(png): PNG over a decode limit: image is 32x32 (1024 pixels), over the 1000-pixel limit\n")
    let (fixture, name) = try await Self.onePhoto("basn2c08.png")
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let download = try runImgfetch(
      FetchCommandTests.arguments(
        fixture, cache: cache, ["Photo/aaaaaaaaaa", "--column", "MainImage", "--max-pixels", "1000"]))
    #expect(download.status == 4)
    #expect(download.stderrText.contains("is over a decode limit and was not cached"), "\(download.stderrText)")
    #expect(
      download.stderrText.contains("over the 1000-pixel limit") && !download.stderrText.contains("not a valid image"))
    let version = try runImgfetch(["--version"]).stdoutText.trimmingCharacters(in: .newlines)
    #expect(version.hasPrefix("imgfetch ") && !version.contains("unknown"))
    let agent = "imgfetch/" + version.dropFirst("imgfetch ".count)
    #expect(try await fixture.lastHeaders("classes/Photo/aaaaaaaaaa")["user-agent"] == agent)
    #expect(try await fixture.lastHeaders("files/\(ParseFixture.appID)/\(name)")["user-agent"] == agent)
  }
}
