import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

/// Resuming from an existing `.part` file: used only when the answer continues it exactly,
/// otherwise a clean restart; either way the bytes on disk must equal the original.
@Suite(.timeLimit(.minutes(10))) struct ResumeTests {
  let name = "0123456789abcdef0123456789abcdef_landscape.jpg"
  let original: Data
  let directory: URL
  var part: URL { directory.appendingPathComponent("landscape.jpg.part") }
  var route: String { "files/\(ParseFixture.appID)/\(name)" }

  init() async throws {
    original = try TestFiles.bytes("Landscape_1.jpg")
    directory = try TestFiles.scratchDirectory()
  }

  let downloader = Downloader(
    options: .init(retryPolicy: RetryPolicy(maxAttempts: 2, initialDelay: .milliseconds(50))))

  func fixture(quirks: [String: Bool] = [:]) async throws -> ParseFixture {
    try await ParseFixture(files: [name: "Landscape_1.jpg"], seed: ["quirks": quirks])
  }

  @Test func continuesAMatching206() async throws {
    let fixture = try await fixture()
    try original.prefix(200_000).write(to: part)
    let log = ProgressLog()
    try await downloader.download(from: fixture.fileURL(name), to: part.path, progress: log.handler)
    #expect(try Data(contentsOf: part) == original)
    #expect(try await fixture.requests(route) == 1)
    #expect(
      log.all.first.map { $0.bytesReceived > 200_000 } == true, "progress counts resumed bytes")
  }

  @Test func acceptsParsesOffByOneContentRange() async throws {
    let fixture = try await fixture(quirks: ["offByOne": true])
    try original.prefix(123_456).write(to: part)
    try await downloader.download(from: fixture.fileURL(name), to: part.path)
    #expect(try Data(contentsOf: part) == original)
    #expect(try await fixture.requests(route) == 1)
  }

  @Test func restartsWhenTheServerIgnoresRange() async throws {
    let fixture = try await fixture(quirks: ["ignoreRange": true])
    try Data(repeating: 0xAB, count: 50_000).write(to: part)  // stale bytes that must not survive
    try await downloader.download(from: fixture.fileURL(name), to: part.path)
    #expect(try Data(contentsOf: part) == original)
    #expect(try await fixture.requests(route) == 1)
  }

  @Test func restartsOnAnImpossible206() async throws {
    let fixture = try await fixture(quirks: ["impossible206": true])
    try (original + Data(count: 10)).write(to: part)  // longer than the file
    try await downloader.download(from: fixture.fileURL(name), to: part.path)
    #expect(try Data(contentsOf: part) == original)
    #expect(try await fixture.requests(route) == 2)
  }

  @Test func restartsOn416() async throws {
    let fixture = try await fixture()
    try (original + Data(count: 10)).write(to: part)
    try await downloader.download(from: fixture.fileURL(name), to: part.path)
    #expect(try Data(contentsOf: part) == original)
  }

  @Test func resumesFromNginx() async throws {
    let nginx = try await NginxHost(images: ["Landscape_1.jpg"])
    try original.prefix(300_000).write(to: part)
    try await downloader.download(from: nginx.url("Landscape_1.jpg"), to: part.path)
    #expect(try Data(contentsOf: part) == original)
  }

  @Test func restartsWhenNginxRefusesTheRange() async throws {
    let nginx = try await NginxHost(images: ["Landscape_1.jpg"])
    try (original + Data(count: 3)).write(to: part)
    try await downloader.download(from: nginx.url("Landscape_1.jpg"), to: part.path)
    #expect(try Data(contentsOf: part) == original)
  }

  @Test func resumesFromNginxAfterADroppedConnection() async throws {
    // The fixture cuts the first transfer; nginx (the real file host) serves the rest.
    let fixture = try await fixture()
    try await fixture.inject([["target": route, "kind": "drop", "at": 170_000]])
    await #expect(throws: DownloadError.self) {
      try await Downloader(options: .init(retryPolicy: .none)).download(
        from: fixture.fileURL(name), to: part.path)
    }
    let kept = try Data(contentsOf: part)  // a reset may discard bytes still in flight
    #expect(kept.count > 0 && kept.count <= 170_000 && original.starts(with: kept))
    let nginx = try await NginxHost(images: ["Landscape_1.jpg"])
    try await downloader.download(from: nginx.url("Landscape_1.jpg"), to: part.path)
    #expect(try Data(contentsOf: part) == original)
  }

  @Test(arguments: [
    ("bytes 100-999/1000", 100, true), ("bytes 100-1000/1000", 100, true),
    ("bytes 0-999/1000", 100, false), ("bytes 100-500/1000", 100, false),
    ("bytes 100-999/*", 100, false), ("bytes 1000-1000/1000", 1000, false),
    ("items 100-999/1000", 100, false),
  ])
  func judgesContentRange(header: String, offset: Int64, accepted: Bool) {
    #expect((ContentRange(header)?.continues(from: offset) ?? false) == accepted)
  }
}
