import Foundation
import ImageCodecs
import ImageFetch
import ParseFetch
import ParseFixtureSupport
import Synchronization
import Testing
import Thumbnails

/// The fetch pipeline with an in-process ``DataLoading`` (no server): validation as the bytes
/// arrive, the decode chosen by what was asked, typed errors, hits without requests.
@Suite struct InProcessFetchTests {
  let url = URL(string: "https://files.example/photo/landscape.jpg")!
  let cache: DiskCache

  init() throws { cache = try DiskCache(directory: try TestFiles.scratchDirectory().path) }

  func fetcher(_ loader: MemoryLoader, limits: DecodeLimits = .standard) throws -> ImageFetcher {
    try ImageFetcher(cache: cache, downloader: loader, decodeOptions: DecodeOptions(limits: limits))
  }

  func loader(_ image: String, chunkSize: Int = 16 << 10) throws -> MemoryLoader {
    MemoryLoader([url: try TestFiles.bytes(image)], chunkSize: chunkSize)
  }

  func cacheFiles() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: cache.directory).filter {
      !$0.hasPrefix(".") && CacheFile(fileName: $0) != .tag
    }.sorted()
  }

  @Test func aHeaderOverTheLimitsStopsTheTransferAtOnce() async throws {
    let loader = try loader("Landscape_1.jpg", chunkSize: 4096)
    var limits = DecodeLimits.standard
    limits.maxPixels = 1000
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher(loader, limits: limits).cachedFile(at: url)
    }
    guard case .invalidImage(_, let decodeError)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(decodeError.kind == .limitExceeded)
    let size = try TestFiles.bytes("Landscape_1.jpg").count
    #expect(loader.seen.bytesWritten < size / 4, "stopped after \(loader.seen.bytesWritten) of \(size) bytes")
    #expect(try cacheFiles().isEmpty, "nothing cached, no .part kept")
  }

  @Test func aTruncatedJPEGIsRejectedByTheCheapDecodeAsByTheFullOne() async throws {
    let full = try #require(throws: DecodeError.self) {
      try ImageDecoder.decode(contentsOf: TestFiles.image("truncated_jpeg.jpg").path)
    }
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher(loader("truncated_jpeg.jpg")).cachedFile(at: url)
    }
    guard case .invalidImage(_, let decodeError)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(decodeError.kind == full.kind)
    #expect(try cacheFiles().isEmpty)
  }

  @Test func aPlainFetchValidatesWithoutHandingBackPixels() async throws {
    let loader = try loader("Landscape_1.jpg")
    let file = try await fetcher(loader).cachedFile(at: url)
    #expect(!file.isCacheHit && file.value?.width == 1800 && file.value?.height == 1200)
    #expect(file.value?.image == nil)
    #expect(try FileManager.default.contents(atPath: file.path) == TestFiles.bytes("Landscape_1.jpg"))
  }

  @Test func imageHandsBackTheValidatingDecodeAndAHitMakesNoRequest() async throws {
    let loader = try loader("Landscape_1.jpg")
    let fetcher = try fetcher(loader)
    let image = try await fetcher.image(at: url)
    #expect(image == (try ImageDecoder.decode(contentsOf: TestFiles.image("Landscape_1.jpg").path)))
    let hit = try await fetcher.cachedFile(at: url)
    #expect(hit.isCacheHit && hit.value == nil)
    #expect(try await fetcher.image(at: url) == image)
    #expect(loader.seen.downloads == 1)
  }

  @Test func aThumbnailIsMadeOnceAndReusedFromItsStampOnAHit() async throws {
    let loader = try loader("Landscape_1.jpg")
    let fetcher = try fetcher(loader)
    let options = ThumbnailOptions(size: .longestSide(128))
    let made = try await fetcher.thumbnail(at: url, options: options)
    #expect(!made.original.isCacheHit && !made.thumbnail.reused)
    #expect(made.thumbnail.width == 128 && made.thumbnail.height == 85)
    let again = try await fetcher.thumbnail(at: url, options: options)
    #expect(again.original.isCacheHit && again.thumbnail.reused && again.thumbnail.path == made.thumbnail.path)
    #expect(loader.seen.downloads == 1)
  }

  @Test func aMissingFileIsADownloadError() async throws {
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher(MemoryLoader([:])).image(at: url)
    }
    guard case .download(.httpStatus(_, 404, _, _))? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
  }

  @Test func cancellationIsTypedAndKeepsNothingInTheCache() async throws {
    let fetcher = try fetcher(loader("Landscape_1.jpg", chunkSize: 512))
    let task = Task { try await fetcher.image(at: url) }
    task.cancel()
    let result = await task.result
    guard case .failure(let error) = result, case .cancelled? = error as? ImageFetchError else {
      Issue.record("got \(result)")
      return
    }
    #expect(cache.cachedFile(for: CacheKey(url: url.absoluteString)) == nil)
  }

  @Test func aDownloadedThumbnailIsTheOneMadeFromTheStoredFile() async throws {
    let fetcher = try fetcher(loader("Landscape_1.jpg"))
    let options = ThumbnailOptions(size: .longestSide(96))
    let made = try await fetcher.thumbnail(at: url, options: options)
    let written = try Data(contentsOf: URL(fileURLWithPath: made.thumbnail.path))
    // The same file made the ordinary way from a copy of the original, after removing ours.
    let copy = try TestFiles.scratchDirectory().appendingPathComponent(made.original.key.fileName)
    try FileManager.default.copyItem(atPath: made.original.path, toPath: copy.path)
    let reference = try Thumbnailer(options: options).makeThumbnail(forFileAt: copy.path)
    #expect(
      try Thumbnailer(options: options).image(contentsOf: made.original.path)
        == Thumbnailer(options: options).image(contentsOf: copy.path))
    #expect(made.thumbnail.width == reference.width && made.thumbnail.height == reference.height)
    #expect(try ImageDecoder.decode(written) == ImageDecoder.decode(contentsOf: reference.path))
  }

  @Test(arguments: ["progressive.jpeg", "Landscape_1.jpg", "basn6a08.png"])
  func aCutFileIsRejectedByTheThumbnailDecodeAsByTheFullOne(_ name: String) async throws {
    let bytes = try TestFiles.bytes(name)
    let cut = bytes.prefix(bytes.count * 7 / 10)
    let full = try #require(throws: DecodeError.self) { try ImageDecoder.decode(cut) }
    let fetcher = try ImageFetcher(
      cache: cache, downloader: MemoryLoader([url: Data(cut)]), decodeOptions: DecodeOptions())
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher.thumbnail(at: url, options: ThumbnailOptions(size: .longestSide(32)))
    }
    guard case .invalidImage(_, let decodeError)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(decodeError.kind == full.kind)
    #expect(try cacheFiles().isEmpty)
  }

  /// A ``FileCaching`` of our own (the role, not DiskCache), counting what the fetcher asks of it.
  final class CountingCache: FileCaching {
    let inner: DiskCache
    let counts = Mutex((stores: 0, locks: 0, removals: 0))
    init(_ inner: DiskCache) { self.inner = inner }
    func cachedFile(for key: CacheKey) -> String? { inner.cachedFile(for: key) }
    func partPath(for key: CacheKey) -> String { inner.partPath(for: key) }
    func store(_ part: String, as key: CacheKey) throws(CacheError) -> String {
      counts.withLock { $0.stores += 1 }
      return try inner.store(part, as: key)
    }
    func removeEntry(for key: CacheKey) throws(CacheError) {
      counts.withLock { $0.removals += 1 }
      try inner.removeEntry(for: key)
    }
    func lockEntry(_ key: CacheKey) async throws -> any EntryLock {
      counts.withLock { $0.locks += 1 }
      return try await inner.lockEntry(key)
    }
  }

  @Test func anyCacheRoleStoresOnlyValidatedDownloads() async throws {
    let store = CountingCache(cache)
    let loader = MemoryLoader([
      url: try TestFiles.bytes("Landscape_1.jpg"), bad: try TestFiles.bytes("truncated_jpeg.jpg"),
    ])
    let fetcher = try ImageFetcher(cache: store, downloader: loader)
    _ = try await fetcher.cachedFile(at: url)
    _ = try await fetcher.cachedFile(at: url)
    await #expect(throws: ImageFetchError.self) { try await fetcher.cachedFile(at: bad) }
    let counts = store.counts.withLock { $0 }
    #expect(counts.stores == 1, "the truncated file is never stored")
    #expect(counts.locks == 2, "a hit takes no lock")
    #expect(loader.seen.downloads == 2)
  }

  var bad: URL { URL(string: "https://files.example/photo/cut.jpg")! }
}
