import FixtureSupport
import Foundation
import ParseFetch
import ParseFixtureSupport
import Testing

/// The fetch command run as a user would, against the fixture Parse Server on 127.0.0.1.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct FetchCommandTests {
  static let photos = [
    ("aaaaaaaaaa", "Landscape_1.jpg"), ("bbbbbbbbbb", "Portrait_6.jpg"), ("cccccccccc", "progressive.jpeg"),
    ("dddddddddd", "basn6a08.png"), ("eeeeeeeeee", "iptc.jpg"), ("ffffffffff", "hopper_gray.jpg"),
  ]

  /// A server whose class Photo has the photos above, plus one object whose file is not an image.
  static func server(withBrokenItem: Bool = true) async throws -> ParseFixture {
    var files: [String: String] = [:]
    var objects: [[String: Any]] = []
    for (id, image) in photos {
      let name = "0123456789abcdef0123456789abcdef_\(image)"
      files[name] = image
      objects.append(ParseFixture.photo(id, ParseFixture.file(name)))
    }
    if withBrokenItem {
      files["0123456789abcdef0123456789abcdef_broken.jpg"] = "truncated_jpeg.jpg"
      objects.append(ParseFixture.photo("zzzzzzzzzz", ParseFixture.file("0123456789abcdef0123456789abcdef_broken.jpg")))
    }
    return try await ParseFixture(files: files, seed: ["classes": ["Photo": objects]])
  }

  static func arguments(_ fixture: ParseFixture, cache: URL, _ more: [String]) -> [String] {
    [
      "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key", ParseFixture.restKey,
      "--cache-dir", cache.path,
    ] + more
  }

  @Test func aBatchOverAClassContinuesPastAFailedItemAndExitsTwo() async throws {
    let fixture = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let result = try runImgfetch(
      Self.arguments(fixture, cache: cache, ["--class", "Photo", "--column", "MainImage", "--thumbnail", "64"]))
    #expect(result.status == 2)
    let lines = result.stdoutText.split(separator: "\n")
    #expect(lines.count == Self.photos.count)
    for line in lines {
      // A class walk's line: objectId, cached file, thumbnail (issue 32).
      let paths = line.split(separator: "\t").map(String.init).dropFirst()
      #expect(paths.count == 2 && paths.allSatisfy { FileManager.default.fileExists(atPath: $0) })
    }
    #expect(result.stderrText.contains("Photo/zzzzzzzzzz"))
    #expect(result.stderrText.contains("truncated JPEG"))
    #expect(result.stderrText.contains("1 of 7 items failed"))
    // Only complete, valid files in the cache: the broken download was deleted, not stored.
    let names = try FileManager.default.contentsOfDirectory(atPath: cache.path)
    #expect(!names.contains { $0.contains("broken") && !$0.hasSuffix(".part") })
  }

  @Test func shardsCoverTheClassExactlyOnce() async throws {
    let fixture = try await Self.server(withBrokenItem: false)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    var seen: [String] = []
    for k in 1...3 {
      let result = try runImgfetch(
        Self.arguments(
          fixture, cache: cache, ["--class", "Photo", "--column", "MainImage", "--json", "--shard", "\(k)/3"]))
      #expect(result.status == 0)
      for line in result.stdoutText.split(separator: "\n") {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
        seen.append(object["objectId"] as! String)
      }
    }
    #expect(seen.sorted() == Self.photos.map(\.0).sorted())
  }

  @Test func oneObjectAsJSONHasTheDocumentedKeys() async throws {
    let fixture = try await Self.server(withBrokenItem: false)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let arguments = Self.arguments(fixture, cache: cache, ["Photo/aaaaaaaaaa", "--column", "MainImage", "--json"])
    let first = try runImgfetch(arguments)
    #expect(first.status == 0 && first.stderr.isEmpty)
    let object = try JSONSerialization.jsonObject(with: Data(first.stdout)) as! [String: Any]
    #expect(object["source"] as? String == "Photo/aaaaaaaaaa" && object["objectId"] as? String == "aaaaaaaaaa")
    #expect(object["width"] as? Int == 1800 && object["height"] as? Int == 1200)
    #expect(object["format"] as? String == "jpeg" && object["cacheHit"] as? Bool == false)
    #expect(object["bytes"] as? Int == 347327)
    #expect(FileManager.default.fileExists(atPath: object["cachePath"] as! String))
    let second = try runImgfetch(arguments)
    let again = try JSONSerialization.jsonObject(with: Data(second.stdout)) as! [String: Any]
    #expect(again["cacheHit"] as? Bool == true)
  }

  /// A local file in a batch with downloads is decoded off Swift's cooperative pool and off the
  /// global dispatch threads (13.8), so a long local decode does not hold up a download. On one CPU
  /// (`taskset`) each of those pools has one thread, which the local decode took before: the
  /// download, second in line, could not finish until the decode had. Nor may the finished
  /// download wait for the local decode's slot (`--jobs 1`) to report its header: that wait lost
  /// the race whenever the download ended after the decode began (on two cores, under strace, under
  /// AddressSanitizer, and on a loaded CI machine).
  @Test(arguments: [true, false])
  func aLongLocalDecodeDoesNotHoldUpADownload(onOneCPU: Bool) async throws {
    let fixture = try await ParseFixture(files: ["small.png": "basn6a08.png"])
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    // 10,000 x 10,000 RGBA 16-bit of zeros: 800 MB of rows from a ~780 KB zlib stream, which a strict
    // decode reads row by row in seconds (a download of a 32x32 PNG takes milliseconds).
    let slow = scratch.appendingPathComponent("slow.png").path
    let command = LargeImages.zeroPNGCommand(to: slow, side: 10_000, bitDepth: 16, colorType: 6)
    #expect(try await runProcessOffThePool(command.executable, command.arguments).status == 0)
    let url = fixture.fileURL("small.png").absoluteString
    let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let arguments = ["--json", "--jobs", "1", slow, url, "--cache-dir", scratch.appendingPathComponent("cache").path]
    let result =
      try await onOneCPU
      ? runProcessOffThePool("/usr/bin/taskset", ["-c", "0", imgfetch] + arguments)
      : runProcessOffThePool(imgfetch, arguments)
    #expect(result.status == 0, "\(result.stderrText)")
    // Lines come in the order the items finish.
    let sources = result.stdoutText.split(separator: "\n").compactMap { line in
      (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["source"] as? String
    }
    #expect(sources == [url, slow])
  }

  @Test func errorsAreOneActionableLineWithoutSecrets() async throws {
    let fixture = try await Self.server(withBrokenItem: false)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let notFound = try runImgfetch(
      Self.arguments(
        fixture, cache: cache, ["Photo/nonexisten", "--column", "MainImage", "--master-key", ParseFixture.masterKey]))
    // A deleted object is data, not the network (issue 32): exit 4, which job runners do not retry.
    #expect(notFound.status == 4)
    #expect(notFound.stderrText.hasPrefix("imgfetch: Photo/nonexisten: object not found"))
    #expect(notFound.stderrText.split(separator: "\n").count == 1)
    let wrongKey = try runImgfetch(
      [
        "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key", "wrong-SECRET-key",
        "--cache-dir", cache.path, "Photo/aaaaaaaaaa", "--column", "MainImage",
      ])
    #expect(wrongKey.status == 3)
    for secret in ParseFixture.secrets + ["wrong-SECRET-key"] {
      #expect(!notFound.stderrText.contains(secret) && !wrongKey.stderrText.contains(secret))
    }
  }

  @Test func usageErrorsExitOne() throws {
    for arguments in [
      ["Photo/aaaaaaaaaa"], ["--class", "Photo"], ["--class", "Photo", "--column", "x", "--shard", "4/3"],
      ["--class", "Photo", "--column", "x", "--progress", "sometimes"],
    ] {
      let result = try runImgfetch(
        arguments, environment: ["PARSE_SERVER_URL": "http://127.0.0.1:9/parse", "PARSE_APPLICATION_ID": "x"])
      #expect(result.status == 1, "\(arguments)")
      #expect(result.stderrText.split(separator: "\n").count == 1, "\(arguments)")
    }
  }

  @Test func aTerminalGetsAProgressBarThatIsErasedAtTheEnd() async throws {
    let fixture = try await Self.server(withBrokenItem: false)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    // Made (and tagged) first: the typescripts go into this directory before imgfetch runs.
    _ = try DiskCache(directory: cache.path)
    let binary = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let command = ([binary] + Self.arguments(fixture, cache: cache, ["--class", "Photo", "--column", "MainImage"]))
      .map { "'\($0)'" }.joined(separator: " ")
    // util-linux `script` runs the command under a pseudo-terminal and copies what it drew.
    let typescript = cache.appendingPathComponent("typescript").path
    let result = try runProcess("/usr/bin/script", ["-q", "-e", "-c", command + " --progress auto", typescript])
    #expect(result.status == 0)
    let drawn = String(decoding: try Data(contentsOf: URL(fileURLWithPath: typescript)), as: UTF8.self)
    #expect(drawn.contains("\r") && drawn.contains(" of 6 items"))  // the batch's bar, items done of the total
    #expect(drawn.contains("\u{1B}[K"))
    let afterLastBar = drawn.components(separatedBy: "\r").last ?? ""
    #expect(afterLastBar.hasPrefix("\u{1B}[K"))  // erased: nothing left on the line
    // Results going into a pipe may reach the terminal later (`| cat`, `| head`, `| jq`): no bar then,
    // so no line of output is glued to one.
    let piped = try SafetyTests.runOnATerminal(
      Self.arguments(fixture, cache: cache, ["--class", "Photo", "--column", "MainImage", "--json"]),
      pipeInto: "cat", in: cache)
    #expect(piped.status == 0)
    #expect(!piped.drawn.contains(" of 6 items") && !piped.drawn.contains("\u{1B}[K"))
    #expect(piped.drawn.components(separatedBy: "{\"source\":").count == Self.photos.count + 1)
    // On a pipe, nothing at all.
    let quiet = try runImgfetch(Self.arguments(fixture, cache: cache, ["--class", "Photo", "--column", "MainImage"]))
    #expect(quiet.stderr.isEmpty)
  }
}
