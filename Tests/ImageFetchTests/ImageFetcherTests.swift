import Foundation
import ImageCodecs
import ImageFetch
import ParseFetch
import ParseFixtureSupport
import SystemFiles
import Testing
import Thumbnails

/// `ImageFetcher` in process, through its two roles: ``LocalFileLoader`` (the `DataLoading` role
/// served from local fixture files) and `DiskCache` or a `FileCaching` of the test's own. Their
/// subject is the fetch logic: validation as the bytes arrive, the decode chosen by what was
/// asked, typed errors, hits without requests, thumbnails reused from their stamps, keys, damaged
/// entries. What needs the Parse server or HTTP is `ImageFetcherServerTests`'.
@Suite(.timeLimit(.minutes(10))) struct ImageFetcherTests {
  let url = URL(string: "https://files.example/photo/landscape.jpg")!
  let cache: DiskCache

  init() throws { cache = try DiskCache(directory: try TestFiles.scratchDirectory().path) }

  func fetcher(_ loader: LocalFileLoader, limits: DecodeLimits = .standard) throws -> ImageFetcher {
    try ImageFetcher(cache: cache, downloader: loader, decodeOptions: DecodeOptions(limits: limits))
  }

  func loader(_ image: String, chunkSize: Int = 16 << 10) -> LocalFileLoader {
    LocalFileLoader([url: TestFiles.image(image).path], chunkSize: chunkSize)
  }

  /// A scratch file holding `bytes` (a cut or made-up download).
  func scratchFile(_ bytes: Data) throws -> String {
    let path = try TestFiles.scratchDirectory().appendingPathComponent("served").path
    try bytes.write(to: URL(fileURLWithPath: path))
    return path
  }

  /// The file name and decode error of an `.invalidImage` error; nil for any other outcome.
  func invalidImage(_ error: ImageFetchError?) -> (name: String, decodeError: DecodeError)? {
    guard case .invalidImage(let name, let decodeError)? = error else { return nil }
    return (name, decodeError)
  }

  func cacheFiles() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: cache.directory).filter {
      !$0.hasPrefix(".") && CacheFile(fileName: $0) != .tag
    }.sorted()
  }

  @Test func aHeaderOverTheLimitsStopsTheTransferAtOnce() async throws {
    let loader = loader("Landscape_1.jpg", chunkSize: 4096)
    var limits = DecodeLimits.standard
    limits.maxPixels = 1000
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher(loader, limits: limits).cachedFile(at: url)
    }
    let decodeError = try #require(invalidImage(error), "got \(String(describing: error))").decodeError
    #expect(decodeError.kind == .limitExceeded)
    let size = try TestFiles.bytes("Landscape_1.jpg").count
    #expect(loader.bytesWritten(url) < size / 4, "stopped after \(loader.bytesWritten(url)) of \(size) bytes")
    #expect(try cacheFiles().isEmpty, "nothing cached, no .part kept")
  }

  @Test func aTruncatedJPEGIsRejectedByTheCheapDecodeAsByTheFullOne() async throws {
    let full = try #require(throws: DecodeError.self) {
      try ImageDecoder.decode(contentsOf: TestFiles.image("truncated_jpeg.jpg").path)
    }
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher(loader("truncated_jpeg.jpg")).cachedFile(at: url)
    }
    let decodeError = try #require(invalidImage(error), "got \(String(describing: error))").decodeError
    #expect(decodeError.kind == full.kind)
    #expect(try cacheFiles().isEmpty)
  }

  @Test func aPlainFetchValidatesWithoutHandingBackPixels() async throws {
    let file = try await fetcher(loader("Landscape_1.jpg")).cachedFile(at: url)
    #expect(!file.isCacheHit && file.value?.width == 1800 && file.value?.height == 1200)
    #expect(file.value?.image == nil)
    #expect(try FileManager.default.contents(atPath: file.path) == TestFiles.bytes("Landscape_1.jpg"))
  }

  @Test func imageHandsBackTheValidatingDecodeAndAHitMakesNoRequest() async throws {
    let loader = loader("Landscape_1.jpg")
    let fetcher = try fetcher(loader)
    let image = try await fetcher.image(at: url)
    #expect(image == (try ImageDecoder.decode(contentsOf: TestFiles.image("Landscape_1.jpg").path)))
    let hit = try await fetcher.cachedFile(at: url)
    #expect(hit.isCacheHit && hit.value == nil)
    #expect(try await fetcher.image(at: url) == image)
    #expect(loader.requests.count == 1)
  }

  @Test func aThumbnailIsMadeOnceAndReusedFromItsStampOnAHit() async throws {
    let loader = loader("Landscape_1.jpg")
    let fetcher = try fetcher(loader)
    let options = ThumbnailOptions(size: .longestSide(128))
    let made = try await fetcher.thumbnail(at: url, options: options)
    #expect(!made.original.isCacheHit && !made.thumbnail.reused)
    #expect(made.thumbnail.width == 128 && made.thumbnail.height == 85)
    #expect(made.thumbnail.path.hasPrefix(cache.directory + "/"))
    #expect(try ImageDecoder.probe(contentsOf: made.thumbnail.path).width == 128)
    #expect(FileManager.default.fileExists(atPath: made.original.path))
    let again = try await fetcher.thumbnail(at: url, options: options)
    #expect(again.original.isCacheHit && again.thumbnail.reused && again.thumbnail.path == made.thumbnail.path)
    #expect(loader.requests.count == 1)
  }

  /// `keepsCachedOriginal` off (`imgfetch --thumbnails-only`): callers sharing one download all get
  /// the thumbnail, the entry is gone afterwards, and a later load reuses the thumbnail from its
  /// stamp without a request; several sizes are current together or not at all.
  @Test func withoutKeepingTheOriginalALaterLoadFindsItsThumbnailsAndDownloadsNothing() async throws {
    let loader = loader("Landscape_1.jpg", chunkSize: 4096)
    loader.hold(url, atByte: 50_000)
    let fetcher = try fetcher(loader)
    var options = ThumbnailOptions(size: .longestSide(128))
    options.keepsCachedOriginal = false
    let (shared, url) = (options, url)
    let (first, second) = (
      Task { try await fetcher.thumbnail(at: url, options: shared) },
      Task { try await fetcher.thumbnail(at: url, options: shared) }
    )
    try await waitUntil("the transfer to reach its hold") { loader.isHeld(url) }
    loader.release(url)
    let results = [try await first.value, try await second.value]
    #expect(loader.requests.count == 1, "one download for both")
    for made in results {
      #expect(!made.originalIsKept && made.thumbnail.width == 128 && made.thumbnail.height == 85)
      #expect(FileManager.default.fileExists(atPath: made.thumbnail.path))
      #expect(!FileManager.default.fileExists(atPath: made.original.path))
    }
    #expect(results[0].thumbnail.path == results[1].thumbnail.path)
    #expect(results.contains { $0.original.value?.header.format == .jpeg })
    #expect(cache.cachedFile(for: CacheKey(url: url.absoluteString)) == nil)

    let again = try await fetcher.thumbnail(at: url, options: options)
    #expect(loader.requests.count == 1, "nothing downloaded")
    #expect(again.original.isCacheHit && again.thumbnail.reused && !again.originalIsKept)
    #expect(again.original.byteCount == Int64(try TestFiles.bytes("Landscape_1.jpg").count))
    #expect(again.thumbnail.path == results[0].thumbnail.path)

    // Two sizes, one of which was never made: downloaded again and both written (the new download is
    // newer than the old thumbnail), then the entry removed.
    let sizes: [ThumbnailSize] = [.longestSide(128), .longestSide(32)]
    let both = try await fetcher.thumbnail(at: url, options: options, sizes: sizes)
    #expect(loader.requests.count == 2)
    #expect(both.thumbnails.map(\.width) == [128, 32] && both.thumbnails.allSatisfy { !$0.reused })
    #expect(cache.cachedFile(for: CacheKey(url: url.absoluteString)) == nil)
    let bothAgain = try await fetcher.thumbnail(at: url, options: options, sizes: sizes)
    #expect(loader.requests.count == 2 && bothAgain.thumbnails.allSatisfy(\.reused))
    // Another option (the filter) is another thumbnail: not current.
    options.filter = .bilinear
    _ = try await fetcher.thumbnail(at: url, options: options)
    #expect(loader.requests.count == 3)
  }

  @Test func aMissingFileIsADownloadError() async throws {
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher(LocalFileLoader([:])).image(at: url)
    }
    guard case .download(.httpStatus(_, 404, _, _))? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
  }

  @Test func cancellationIsTypedAndStoresNothing() async throws {
    let loader = loader("Landscape_1.jpg")
    loader.hold(url, atByte: 100_000)
    let fetcher = try fetcher(loader)
    let task = Task { try await fetcher.image(at: url) }
    try await waitUntil("the transfer to reach its hold") { loader.isHeld(url) }
    task.cancel()
    let result = await task.result
    guard case .failure(let error) = result, case .cancelled? = error as? ImageFetchError else {
      Issue.record("got \(result)")
      return
    }
    let key = CacheKey(url: url.absoluteString)
    #expect(cache.cachedFile(for: key) == nil)
    #expect(try cacheFiles() == [key.fileName + ".part"], "only the .part, for a resume")
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
      cache: cache, downloader: LocalFileLoader([url: try scratchFile(cut)]), decodeOptions: DecodeOptions())
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher.thumbnail(at: url, options: ThumbnailOptions(size: .longestSide(32)))
    }
    let decodeError = try #require(invalidImage(error), "got \(String(describing: error))").decodeError
    #expect(decodeError.kind == full.kind)
    #expect(try cacheFiles().isEmpty)
  }

  @Test func aTruncatedParseFileIsRejectedByNameAndCachesNothing() async throws {
    let file = ParseFile(name: "00112233445566778899aabbccddeeff_cut.jpg", url: url)
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher(loader("truncated_jpeg.jpg")).load(file)
    }
    let (name, decodeError) = try #require(invalidImage(error), "got \(String(describing: error))")
    #expect(name == file.name && decodeError.kind == .truncated)
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: cache.directory)) == [".locks", "CACHEDIR.TAG"])
  }

  @Test func bytesThatAreNotAnImageAreRejected() async throws {
    let html = Data("<html><body>502 Bad Gateway</body></html>\n".utf8)
    let fetcher = try fetcher(LocalFileLoader([url: try scratchFile(html)]))
    let error = await #expect(throws: ImageFetchError.self) { try await fetcher.image(at: url) }
    let decodeError = try #require(invalidImage(error), "got \(String(describing: error))").decodeError
    #expect(decodeError.kind == .notAnImage)
    #expect(error?.description.contains("not a valid image") == true)
    #expect(try cacheFiles().isEmpty)
  }

  @Test func anEntryDamagedOnDiskIsDownloadedAgain() async throws {
    let loader = loader("Landscape_1.jpg")
    let fetcher = try fetcher(loader)
    let file = ParseFile(name: "0123456789abcdef0123456789abcdef_landscape.jpg", url: url)
    let image = try await fetcher.load(file).image
    try Data("garbage".utf8).write(
      to: URL(fileURLWithPath: cache.path(for: CacheKey(parseFileName: file.name))))
    let again = try await fetcher.load(file)
    #expect(again.image == image && !again.file.isCacheHit)
    #expect(try FileManager.default.contents(atPath: again.file.path) == TestFiles.bytes("Landscape_1.jpg"))
    #expect(loader.requests.count == 2)
  }

  @Test func aHostileFileNameStaysInsideTheCache() async throws {
    let file = ParseFile(name: "../../escape/\u{0}Evil Name.JPG", url: url)
    let entry = try await fetcher(loader("basn6a08.png")).cachedFile(for: file)
    #expect(entry.value?.width == 32)
    #expect(entry.path == cache.directory + "/" + entry.key.fileName)
    #expect(entry.key.fileName.hasPrefix("_escape_evil_name+") && entry.key.fileName.hasSuffix(".jpg"))
    #expect(!FileManager.default.fileExists(atPath: cache.directory + "/../../escape"))
  }

  @Test func parseObjectsNeedAConfiguration() async throws {
    let error = await #expect(throws: ImageFetchError.self) {
      try await fetcher(loader("Landscape_1.jpg"))
        .image(of: ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm"), column: "image")
    }
    #expect(error?.description.contains("no Parse Server is configured") == true)
  }

  /// A ``FileCaching`` of our own (the role, not DiskCache), counting what the fetcher asks of it.
  final class CountingCache: FileCaching {
    let inner: DiskCache
    let counts = Locked((stores: 0, locks: 0, removals: 0))
    init(_ inner: DiskCache) { self.inner = inner }
    func cachedFile(for key: CacheKey) -> String? { inner.cachedFile(for: key) }
    func path(for key: CacheKey) -> String { inner.path(for: key) }
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
    let bad = URL(string: "https://files.example/photo/cut.jpg")!
    let loader = LocalFileLoader([
      url: TestFiles.image("Landscape_1.jpg").path, bad: TestFiles.image("truncated_jpeg.jpg").path,
    ])
    let fetcher = try ImageFetcher(cache: store, downloader: loader)
    _ = try await fetcher.cachedFile(at: url)
    _ = try await fetcher.cachedFile(at: url)
    await #expect(throws: ImageFetchError.self) { try await fetcher.cachedFile(at: bad) }
    let counts = store.counts.withLock { $0 }
    #expect(counts.stores == 1, "the truncated file is never stored")
    #expect(counts.locks == 2, "a hit takes no lock")
    #expect(loader.requests.count == 2)
  }
}
