import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

/// Integration: `FileFetcher` with the real `Downloader` against the fixture Parse server's
/// injected HTTP faults. Every fault ends in a valid entry or a clear error, with nothing in the
/// cache but a resumable `.part` file. (The fetch and cache logic itself is `FileFetcherTests`',
/// in process.)
@Suite(.timeLimit(.minutes(10))) struct FileFetcherServerTests {
  let name = "0123456789abcdef0123456789abcdef_landscape.jpg"
  let original: Data
  let fixture: ParseFixture
  let cache: DiskCache
  var key: CacheKey { CacheKey(parseFileName: name) }
  var route: String { "files/\(ParseFixture.appID)/\(name)" }

  init() async throws {
    original = try TestFiles.bytes("Landscape_1.jpg")
    fixture = try await ParseFixture(files: [name: "Landscape_1.jpg"])
    cache = try DiskCache(directory: try TestFiles.scratchDirectory().path)
  }

  @Test(
    arguments: [
      ["kind": "truncate", "at": 5000], ["kind": "drop", "at": 9000],
      ["kind": "status", "status": 500],
      ["kind": "status", "status": 429, "retryAfter": 1], ["kind": "html502"], ["kind": "notImage"],
      ["kind": "contentType", "value": "text/html"], ["kind": "gzip"],
      ["kind": "lie", "length": 1000],
      ["kind": "truncate", "at": 5000, "times": -1],
      ["kind": "status", "status": 403, "times": -1],
      ["kind": "endless"], ["kind": "redirectLoop", "times": -1],
    ] as [[String: any Sendable]])
  func faultsEndInAnEntryOrACleanError(fault: [String: any Sendable]) async throws {
    var fault = fault
    fault["target"] = route
    try await fixture.inject([fault])
    let retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(50))
    let fetcher = FileFetcher(
      cache: cache,
      downloader: Downloader(options: .init(maximumBytes: 4 << 20, retryPolicy: retry)),
      validate: TestFiles.validateImage)
    do {
      let file = try await fetcher.fetch(fixture.fileURL(name), key: key)
      #expect(FileManager.default.contents(atPath: file.path) == original)
      #expect(try cacheContents() == [key.fileName])
    } catch {
      let message = "\(error)"
      #expect(!message.isEmpty && !message.contains("SECRET"))
      let left = try cacheContents()
      #expect(left.isEmpty || left == [key.fileName + ".part"], "\(fault): \(left)")
      if let part = left.first {
        #expect(original.starts(with: try #require(FileManager.default.contents(atPath: cache.directory + "/" + part))))
      }
    }
  }

  /// The cache's entries and `.part` files (not its lock directory or its CACHEDIR.TAG).
  func cacheContents() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: cache.directory).filter {
      !$0.hasPrefix(".") && CacheFile(fileName: $0) != .tag
    }
  }
}
