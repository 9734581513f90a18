import Foundation
import ImageCodecs
import ImageFetch
import ParseFetch
import ParseFixtureSupport
import Testing
import Thumbnails

/// Integration: the whole pipeline against the fixture Parse server and nginx, object → file →
/// download → full decode → cache → image, for what needs a server: object lookups and Parse's
/// errors, credentials on file requests, a plain URL over HTTP, a download resumed by `Range`, the
/// completion-handler API, and the warm path's request count. The fetch and cache logic is
/// `ImageFetcherTests`', in process.
@Suite(.timeLimit(.minutes(10))) struct ImageFetcherServerTests {
  let jpeg = "0123456789abcdef0123456789abcdef_landscape.jpg"
  let png = "fedcba9876543210fedcba9876543210_alpha.png"
  let photo = ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm")
  let fixture: ParseFixture
  let cache: DiskCache

  init() async throws {
    fixture = try await ParseFixture(
      files: [
        jpeg: "Landscape_1.jpg", png: "basn6a08.png",
      ],
      seed: [
        "classes": [
          "Photo": [
            ParseFixture.photo("Ed1nuqPvcm", ParseFixture.file(jpeg)),
            ParseFixture.photo("alphaPng01", ParseFixture.file(png)),
            ParseFixture.photo("textValue1", "not a file"),
          ]
        ]
      ])
    cache = try DiskCache(directory: try TestFiles.scratchDirectory().path)
  }

  func fetcher(configured: Bool = true) throws -> ImageFetcher {
    try ImageFetcher(
      configuration: configured ? fixture.configuration(sessionToken: ParseFixture.sessionToken) : nil,
      cache: cache)
  }

  var fileRoute: String { "files/\(ParseFixture.appID)/\(jpeg)" }

  @Test func loadsAnObjectsImageAsTheDecoderSeesIt() async throws {
    let log = ProgressLog()
    let image = try await fetcher().image(of: photo, column: "MainImage", progress: log.handler)
    let reference = try ImageDecoder.decode(contentsOf: TestFiles.image("Landscape_1.jpg").path)
    #expect(image == reference)
    #expect(log.all.last?.fraction == 1)
    #expect(cache.cachedFile(for: CacheKey(parseFileName: jpeg)) != nil)
  }

  @Test func sendsTheSessionTokenWithTheFileRequest() async throws {
    _ = try await fetcher().image(of: photo, column: "MainImage")
    #expect(try await fixture.lastHeaders(fileRoute)["x-parse-session-token"] == ParseFixture.sessionToken)
    #expect(try await fixture.lastHeaders(fileRoute)["x-parse-master-key"] == nil)
  }

  @Test func namesTheObjectWhenTheColumnIsNotAFile() async throws {
    let object = ParseObjectReference(className: "Photo", objectID: "textValue1")
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher().image(of: object, column: "MainImage")
    }
    #expect(error?.description == "Photo/textValue1: column MainImage is not a file (found a string)")
  }

  @Test func loadsAPlainURLWithoutParse() async throws {
    let nginx = try await NginxHost(images: ["basn6a08.png"])
    let fetcher = try fetcher(configured: false)
    let image = try await fetcher.image(at: nginx.url("basn6a08.png"))
    #expect(image.width == 32 && image.height == 32 && image.hasAlpha)
    let file = try await fetcher.cachedFile(at: nginx.url("basn6a08.png"))
    #expect(file.isCacheHit && file.key.fileName.hasPrefix("basn6a08+"))
  }

  @Test func completesForCallersWithoutAsync() async throws {
    let fetcher = try fetcher()
    let result = await withCheckedContinuation { continuation in
      fetcher.loadImage(of: photo, column: "MainImage") { continuation.resume(returning: $0) }
    }
    #expect(try result.get().width == 1800)
  }

  @Test func cancellingTheCompletionTaskReportsCancellation() async throws {
    // 1 KB a second: the cancel must come before the end, even when the polling task below waits
    // minutes for a cooperative thread (see `waitUntil`).
    try await fixture.inject([["target": fileRoute, "kind": "trickle", "chunk": 1024, "delay": 1.0]])
    let fetcher = try fetcher()
    let log = ProgressLog()
    let result = await withCheckedContinuation { continuation in
      let task = fetcher.loadImage(of: photo, column: "MainImage", progress: log.handler) {
        continuation.resume(returning: $0)
      }
      Task {
        while log.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        task.cancel()
      }
    }
    #expect(throws: ImageFetchError.self) { try result.get() }
    guard case .failure(.cancelled) = result else {
      Issue.record("got \(result)")
      return
    }
    #expect(cache.cachedFile(for: CacheKey(parseFileName: jpeg)) == nil)
  }

  @Test func aResumedDownloadIsDecodedFromTheStartOfItsPartFile() async throws {
    // The first answer breaks off after 100 kB; the retry asks for the rest with Range, and the
    // streaming decode must see the bytes already on disk first to give the right pixels.
    try await fixture.inject([["target": fileRoute, "kind": "drop", "at": 100_000]])
    let image = try await fetcher().image(of: photo, column: "MainImage")
    #expect(image == (try ImageDecoder.decode(contentsOf: TestFiles.image("Landscape_1.jpg").path)))
    #expect(try await fixture.requests(fileRoute) == 2)
    #expect(try await fixture.lastHeaders(fileRoute)["range"] == "bytes=100000-")
  }

  @Test func aWarmHitIsOneRequestNoFileRequestAndNoDecode() async throws {
    let fetcher = try fetcher()
    let options = ThumbnailOptions(size: .longestSide(64))
    let cold = try await fetcher.thumbnail(of: photo, column: "MainImage", options: options)
    #expect(!cold.original.isCacheHit && !cold.thumbnail.reused)
    // Damage the entry's pixel data in place, keeping its size and times: a hit that decoded the
    // entry (or remade the thumbnail) would now fail or differ.
    let entry = cold.original.path
    var status = stat()
    #expect(stat(entry, &status) == 0)
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: entry))
    try handle.seek(toOffset: UInt64(cold.original.byteCount / 2))
    try handle.write(contentsOf: Data(repeating: 0xFF, count: 4096))
    try handle.close()
    var times = [status.st_atim, status.st_mtim]
    #expect(utimensat(AT_FDCWD, entry, &times, 0) == 0)
    let objectRoute = "classes/Photo/\(photo.objectID)"
    let (objects, files) = (try await fixture.requests(objectRoute), try await fixture.requests(fileRoute))
    let warm = try await fetcher.thumbnail(of: photo, column: "MainImage", options: options)
    #expect(warm.original.isCacheHit && warm.original.value == nil && warm.thumbnail.reused)
    #expect(warm.thumbnail.path == cold.thumbnail.path)
    let hit = try await fetcher.cachedFile(of: photo, column: "MainImage")
    #expect(hit.isCacheHit)
    #expect(try await fixture.requests(objectRoute) == objects + 2, "one object request per call")
    #expect(try await fixture.requests(fileRoute) == files, "no file request")
  }
}
