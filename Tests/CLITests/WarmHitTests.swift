import FixtureSupport
import Foundation
import ImgfetchVersion
import ParseFetch
import ParseFixtureSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The warm hit (`imgfetch Class/objectId --column COL --thumbnail N` with the file cached): one
/// process, one object request (through libcurl, the one HTTP stack), no file request, no decode, no
/// Foundation networking or ICU; and the cold object before it, in the same single process.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct WarmHitTests {
  static let name = "0123456789abcdef0123456789abcdef_landscape.jpg"
  static let objectRoute = "classes/Photo/aaaaaaaaaa"
  static let fileRoute = "files/\(ParseFixture.appID)/\(name)"

  static func server() async throws -> ParseFixture {
    try await ParseFixture(
      files: [name: "Landscape_1.jpg"],
      seed: ["classes": ["Photo": [ParseFixture.photo("aaaaaaaaaa", ParseFixture.file(name))]]])
  }

  static func arguments(_ server: URL, cache: URL, _ more: [String] = []) -> [String] {
    [
      "--server", server.absoluteString, "--app-id", ParseFixture.appID, "--rest-key", ParseFixture.restKey,
      "--session-token", ParseFixture.sessionToken, "--cache-dir", cache.path, "Photo/aaaaaaaaaa", "--column",
      "MainImage", "--thumbnail", "64",
    ] + more
  }

  static func json(_ result: ProcessResult) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any] ?? [:]
  }

  @Test func aWarmHitIsOneObjectRequestWithTheKeysNoFileRequestNoDecodeAndNothingOutsideTheCache() async throws {
    let fixture = try await Self.server()
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let cache = scratch.appendingPathComponent("cache")
    // A home of its own: a hit must not write anywhere but its cache (URLSession once made
    // ~/.cache/org.swift.foundation.URLCache/… and ~/.local/share/bin on every hit).
    let home = scratch.appendingPathComponent("home")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    let environment = [
      "HOME": home.path, "XDG_CACHE_HOME": home.path + "/.cache", "XDG_DATA_HOME": home.path + "/.local/share",
    ]
    let arguments = Self.arguments(fixture.baseURL, cache: cache, ["--json"])
    let cold = try runImgfetch(arguments, environment: environment)
    #expect(cold.status == 0 && cold.stderr.isEmpty, "\(cold.stderrText)")
    let first = try Self.json(cold)
    #expect(first["cacheHit"] as? Bool == false && first["reused"] as? Bool == false)
    // A miss asks for the object once too: the resolved file goes on to the download.
    #expect(try await fixture.requests(Self.objectRoute) == 1)
    #expect(try await fixture.requests(Self.fileRoute) == 1)
    // Damage the entry's pixel data in place, keeping its size and times: a hit that decoded it
    // (or remade the thumbnail) would now fail or differ.
    let entry = try #require(first["cachePath"] as? String)
    var status = stat()
    #expect(stat(entry, &status) == 0)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: entry))
    try handle.seek(toOffset: UInt64(status.st_size / 2))
    try handle.write(contentsOf: Data(repeating: 0xFF, count: 4096))
    try handle.close()
    var times = [status.st_atim, status.st_mtim]
    #expect(utimensat(AT_FDCWD, entry, &times, 0) == 0)
    for name in try FileManager.default.contentsOfDirectory(atPath: home.path) {
      try FileManager.default.removeItem(at: home.appendingPathComponent(name))
    }

    let warm = try runImgfetch(arguments, environment: environment)
    #expect(warm.status == 0 && warm.stderr.isEmpty, "\(warm.stderrText)")
    var second = try Self.json(warm)
    #expect(second["cacheHit"] as? Bool == true && second["reused"] as? Bool == true)
    // Everything else is the cold run's line.
    (second["cacheHit"], second["reused"]) = (first["cacheHit"], first["reused"])
    let sorted = { (object: [String: Any]) in
      String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
    }
    #expect(try sorted(second) == sorted(first))
    #expect(try await fixture.requests(Self.objectRoute) == 2, "one object request")
    #expect(try await fixture.requests(Self.fileRoute) == 1, "no file request")
    let headers = try await fixture.lastHeaders(Self.objectRoute)
    #expect(headers["x-parse-application-id"] == ParseFixture.appID)
    #expect(headers["x-parse-rest-api-key"] == ParseFixture.restKey)
    #expect(headers["x-parse-session-token"] == ParseFixture.sessionToken)
    #expect(headers["user-agent"] == ImgfetchVersion.userAgent)
    #expect(try FileManager.default.contentsOfDirectory(atPath: home.path) == [], "a hit wrote into HOME")
    // The entry moved up in the LRU order (its access time), its modification time did not.
    var after = stat()
    #expect(stat(entry, &after) == 0)
    #expect(after.st_mtim.tv_sec == status.st_mtim.tv_sec && after.st_mtim.tv_nsec == status.st_mtim.tv_nsec)
    #expect(after.st_atim.tv_sec >= status.st_atim.tv_sec)
    // Without --json, the one plain line of the full path.
    let plain = try runImgfetch(Self.arguments(fixture.baseURL, cache: cache), environment: environment)
    #expect(plain.status == 0)
    #expect(plain.stdoutText == "\(entry)\t\(first["thumbnailPath"] as? String ?? "?")\n")
  }

  /// One executable (issue 23): the cold object and the warm hit are each one process that loads
  /// libcurl for its requests and neither Foundation's networking nor ICU; the cold one asks for the
  /// object once and the file once.
  @Test func aColdFetchAndAWarmHitAreEachOneProcessWithoutFoundationNetworking() async throws {
    let fixture = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let logs = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: logs) }
    let arguments = Self.arguments(fixture.baseURL, cache: cache, ["--json"])
    for (run, hit) in [("cold", false), ("warm", true)] {
      // The dynamic loader's report of every process of the run, one file each (whatever its stderr).
      let result = try runImgfetch(
        arguments, environment: ["LD_DEBUG": "libs", "LD_DEBUG_OUTPUT": "\(logs.path)/\(run)"])
      #expect(result.status == 0, "\(run): \(result.stderrText)")
      #expect(try Self.json(result)["cacheHit"] as? Bool == hit, "\(run)")
      let reports = try FileManager.default.contentsOfDirectory(atPath: logs.path).filter { $0.hasPrefix(run + ".") }
      #expect(reports.count == 1, "\(run): one process, \(reports)")
      let loaded = try reports.map { try String(contentsOfFile: logs.path + "/" + $0, encoding: .utf8) }.joined()
        .split(separator: "\n").filter { $0.contains("calling init:") }
      #expect(loaded.contains { $0.contains("libcurl.so") }, "\(run): libcurl is loaded for the requests")
      for library in [
        "libFoundation.so", "libFoundationNetworking", "libFoundationInternationalization", "_FoundationICU", "libicu",
      ] {
        #expect(!loaded.contains { $0.contains(library) }, "\(run) loads \(library)")
      }
    }
    #expect(try await fixture.requests(Self.objectRoute) == 2, "one object request per run")
    #expect(try await fixture.requests(Self.fileRoute) == 1, "one file request, by the cold run")
  }

  /// The cache holds nothing but what a user asked for once a run is over: the entry, its thumbnail
  /// and the tag (the entry's lock file goes with its lock); an entry gone
  /// since (evicted, cleared) is fetched again, still in one object request.
  @Test func aFetchLeavesOnlyItsFilesAndAGoneEntryIsFetchedAgainInOneRequest() async throws {
    let fixture = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let arguments = Self.arguments(fixture.baseURL, cache: cache, ["--json"])
    #expect(try runImgfetch(arguments).status == 0)
    let names = { Set(try FileManager.default.contentsOfDirectory(atPath: cache.path)) }
    #expect(try names() == [".locks", "CACHEDIR.TAG", Self.name, Self.name + ".thumb-64.jpg"])
    #expect(try FileManager.default.contentsOfDirectory(atPath: cache.appendingPathComponent(".locks").path) == [])
    let entry = cache.appendingPathComponent(Self.name).path
    try FileManager.default.removeItem(atPath: entry)
    let again = try runImgfetch(arguments)
    #expect(again.status == 0, "\(again.stderrText)")
    #expect(try Self.json(again)["cacheHit"] as? Bool == false)
    #expect(FileManager.default.fileExists(atPath: entry))
    #expect(try await fixture.requests(Self.objectRoute) == 2, "one object request per run")
    #expect(try await fixture.requests(Self.fileRoute) == 2)
  }

  /// The one executable, copied alone anywhere, does every command: Parse, a URL, the cache (with
  /// two executables, `imgfetch` copied alone failed them with exit 5).
  @Test func theExecutableCopiedAloneDoesEveryCommand() async throws {
    let fixture = try await Self.server()
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let alone = scratch.appendingPathComponent("bin/imgfetch").path
    try FileManager.default.createDirectory(
      at: scratch.appendingPathComponent("bin"), withIntermediateDirectories: true)
    // Copied by `cp`, not in this process: a child that another test spawns while our copy is open
    // for writing holds that descriptor until it closes its inherited ones, and running the copy
    // meanwhile fails with "Text file busy" (ETXTBSY). `cp` holds the only writable descriptor.
    let copy = try runProcess("/bin/cp", [Fixtures.productsDirectory.appendingPathComponent("imgfetch").path, alone])
    try #require(copy.status == 0, "\(copy.stderrText)")
    let cache = scratch.appendingPathComponent("cache")
    let object = try runProcess(alone, Self.arguments(fixture.baseURL, cache: cache, ["--json"]))
    #expect(object.status == 0, "\(object.stderrText)")
    let url = try runProcess(alone, [fixture.fileURL(Self.name).absoluteString, "--cache-dir", cache.path])
    #expect(url.status == 0, "\(url.stderrText)")
    let stats = try runProcess(alone, ["cache", "stats", "--json", "--cache-dir", cache.path])
    #expect(stats.status == 0)
    #expect(try Self.json(stats)["entries"] as? Int == 2)
    let png = Fixtures.image("basn2c08.png")
    let verify = try runProcess(alone, ["verify", png])
    #expect(verify.status == 0 && verify.stdoutText == "\(png): OK\n")
  }

  @Test func aRedirectToAnotherOriginIsNotFollowedWithTheKeys() async throws {
    let fixture = try await Self.server()
    let other = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let arguments = Self.arguments(fixture.baseURL, cache: cache)
    #expect(try runImgfetch(arguments).status == 0)
    // The cache holds the file; the object request is now sent elsewhere.
    let elsewhere = "\(other.baseURL.absoluteString)/\(Self.objectRoute)?keys=MainImage"
    try await fixture.inject([["target": Self.objectRoute, "kind": "redirect", "to": elsewhere, "times": -1]])
    let warm = try runImgfetch(arguments)
    #expect(warm.status == 3)
    #expect(warm.stderrText.contains("redirected to another origin"), "\(warm.stderrText)")
    #expect(!ParseFixture.secrets.contains { warm.stderrText.contains($0) })
    #expect(try await other.requests(Self.objectRoute) == 0, "nothing reached the other origin")
  }

  @Test func httpsToAServerWithoutTLSFailsAsAConnectionError() async throws {
    let fixture = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    #expect(try runImgfetch(Self.arguments(fixture.baseURL, cache: cache)).status == 0)
    let https = URL(string: fixture.baseURL.absoluteString.replacingOccurrences(of: "http://", with: "https://"))!
    let warm = try runImgfetch(Self.arguments(https, cache: cache, ["--retries", "0"]))
    #expect(warm.status == 3, "\(warm.stderrText)")
    #expect(warm.stdout.isEmpty)
    #expect(warm.stderrText.hasPrefix("imgfetch: Photo/aaaaaaaaaa: "), "\(warm.stderrText)")
    #expect(warm.stderrText.split(separator: "\n").count == 1)
  }

  @Test(arguments: [SIGINT, SIGTERM])
  func aSignalDuringTheHitsRequestExits130WithOneLine(_ signalNumber: Int32) async throws {
    let fixture = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let arguments = Self.arguments(fixture.baseURL, cache: cache)
    #expect(try runImgfetch(arguments).status == 0)
    // The object's answer now waits ten minutes; the signal comes once the request has arrived.
    // (A minute was not enough margin: the `Task.sleep` poll below can wait that long for a free
    // cooperative thread in an AddressSanitizer run under load.)
    try await fixture.inject([["target": Self.objectRoute, "kind": "delay", "seconds": 600, "times": -1]])
    let before = try await fixture.requests(Self.objectRoute)
    let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let output = try ChildProcess.pipe()
    let errors = try ChildProcess.pipe()
    let process = try ChildProcess.Running(
      [imgfetch] + arguments, stdio: [-1, output.writing.fileDescriptor, errors.writing.fileDescriptor])
    try output.writing.close()
    try errors.writing.close()
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(30)
    while try await fixture.requests(Self.objectRoute) == before && clock.now < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    process.send(signalNumber)
    let stopBy = clock.now + .seconds(30)
    while process.isRunning && clock.now < stopBy { try await Task.sleep(for: .milliseconds(20)) }
    #expect(!process.isRunning, "imgfetch did not stop promptly")
    let termination = try await offThePool { process.waitUntilExit(limit: .seconds(5)) }
    #expect(termination == .exit(130))
    let (stdoutData, stderrData) = try await offThePool {
      (output.reading.readDataToEndOfFile(), errors.reading.readDataToEndOfFile())
    }
    let stderrText = String(decoding: stderrData, as: UTF8.self)
    #expect(stderrText == "imgfetch: interrupted\n", "\(stderrText)")
    #expect(stdoutData.isEmpty)
  }
}
