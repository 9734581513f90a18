import FixtureSupport
import Foundation
import ParseFixtureSupport
import Synchronization
import SystemFiles
import Testing

@testable import ParseFetch

/// The cache in front of the loader, in process: validation before storing, hits without
/// requests, one transfer per file, cancellation per caller, resuming from the `.part` file and
/// the entry lock between fetchers. The loader is ``LocalFileLoader`` (the `DataLoading` role
/// served from local files, held or broken off at a byte); what HTTP does to a download is
/// `FileFetcherServerTests`' and `DownloaderTests`' subject.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct FileFetcherTests {
  let url = URL(string: "https://files.example/parse/files/app/landscape.jpg")!
  let original: Data
  let cache: DiskCache
  let key = CacheKey(parseFileName: "0123456789abcdef0123456789abcdef_landscape.jpg")

  init() throws {
    original = try TestFiles.bytes("Landscape_1.jpg")
    cache = try DiskCache(directory: try TestFiles.scratchDirectory().path)
  }

  func loader(_ image: String = "Landscape_1.jpg") -> LocalFileLoader {
    LocalFileLoader([url: TestFiles.image(image).path])
  }

  func fetcher(
    _ loader: LocalFileLoader, validate: @escaping FileFetcher<Int>.Validator = TestFiles.validateImage
  ) -> FileFetcher<Int> {
    FileFetcher(cache: cache, downloader: loader, validate: validate)
  }

  /// How many callers wait on the running transfer of `key`.
  func callers(_ fetcher: FileFetcher<Int>) -> Int {
    fetcher.transfers.withLock { $0[key]?.subscribers.count ?? 0 }
  }

  @Test func storesAValidatedDownloadAndHandsBackTheValue() async throws {
    let file = try await fetcher(loader()).fetch(url, key: key)
    #expect(!file.isCacheHit && file.value == original.count && file.byteCount == Int64(original.count))
    #expect(FileManager.default.contents(atPath: file.path) == original)
    #expect(file.path == cache.path(for: key))
    #expect(try cacheContents() == [key.fileName])
  }

  @Test func aHitCostsNoRequestAndReportsCompletionOnce() async throws {
    let loader = loader()
    let fetcher = fetcher(loader)
    _ = try await fetcher.fetch(url, key: key)
    let log = ProgressLog()
    let hit = try await fetcher.fetch(url, key: key, progress: log.handler)
    #expect(hit.isCacheHit && hit.value == nil && FileManager.default.contents(atPath: hit.path) == original)
    #expect(
      log.all == [DownloadProgress(bytesReceived: Int64(original.count), bytesExpected: Int64(original.count))])
    #expect(loader.requests.count == 1)
  }

  @Test func deletesADownloadThatFailsValidation() async throws {
    let error = await #expect(throws: CacheError.self) {
      try await fetcher(loader("truncated_jpeg.jpg")).fetch(url, key: key)
    }
    guard case .validationFailed(let failed, let underlying)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failed == key && underlying is TestFiles.NotAnImage)
    #expect(error?.description.contains("not a complete PNG or JPEG") == true)
    #expect(try cacheContents().isEmpty, "neither entry nor .part")
  }

  @Test func nothingIsAnEntryBeforeTheValidationAcceptedIt() async throws {
    let loader = loader()
    loader.hold(url, atByte: 200_000)
    let fetch = Task { [cache, key, url] in
      try await FileFetcher<Int>(cache: cache, downloader: loader, validate: TestFiles.validateImage)
        .fetch(url, key: key)
    }
    try await waitUntil("the hold") { loader.isHeld(url) }
    #expect(cache.cachedFile(for: key) == nil)
    #expect(try cacheContents() == [key.fileName + ".part"])
    loader.release(url)
    let file = try await fetch.value
    #expect(FileManager.default.contents(atPath: file.path) == original)
    #expect(try cacheContents() == [key.fileName])
  }

  @Test func sharesOneTransferAmongConcurrentCallers() async throws {
    let loader = loader()
    loader.hold(url, atByte: 100_000)
    let validations = Atomic<Int>(0)
    let fetcher = fetcher(loader) { path in
      validations.add(1, ordering: .relaxed)
      return try TestFiles.validateImage(path)
    }
    let logs = (0..<8).map { _ in ProgressLog() }
    let tasks = logs.map { log in
      Task { [url, key] in try await fetcher.fetch(url, key: key, progress: log.handler) }
    }
    try await waitUntil("eight callers on one held transfer") { loader.isHeld(url) && callers(fetcher) == 8 }
    loader.release(url)
    var files: [FetchedFile<Int>] = []
    for task in tasks { files.append(try await task.value) }
    #expect(files.allSatisfy { $0.value == original.count && !$0.isCacheHit && $0.path == cache.path(for: key) })
    #expect(FileManager.default.contents(atPath: cache.path(for: key)) == original)
    #expect(loader.requests.count == 1)
    #expect(validations.load(ordering: .relaxed) == 1)
    #expect(logs.allSatisfy { $0.all.last?.fraction == 1 }, "each caller gets its own progress")
  }

  @Test func cancellingOneCallerLeavesTheOthersRunning() async throws {
    let loader = loader()
    loader.hold(url, atByte: 100_000)
    let fetcher = fetcher(loader)
    let leaving = Task { [url, key] in try await fetcher.fetch(url, key: key) }
    let staying = Task { [url, key] in try await fetcher.fetch(url, key: key) }
    try await waitUntil("two callers on the held transfer") { loader.isHeld(url) && callers(fetcher) == 2 }
    leaving.cancel()
    await #expect(throws: CancellationError.self) { try await leaving.value }
    #expect(loader.isHeld(url), "the transfer goes on for the other caller")
    loader.release(url)
    let file = try await staying.value
    #expect(FileManager.default.contents(atPath: file.path) == original)
    #expect(loader.requests.count == 1)
  }

  @Test func cancellingEveryCallerStopsTheTransferAndKeepsThePart() async throws {
    let loader = loader()
    loader.hold(url, atByte: 100_000)
    let fetcher = fetcher(loader)
    let log = ProgressLog()
    let tasks = (0..<3).map { _ in
      Task { [url, key] in try await fetcher.fetch(url, key: key, progress: log.handler) }
    }
    try await waitUntil("three callers on the held transfer") { loader.isHeld(url) && callers(fetcher) == 3 }
    for task in tasks { task.cancel() }
    for task in tasks { await #expect(throws: CancellationError.self) { try await task.value } }
    // The transfer holds the entry's lock until it has stopped: wait for that event, not a clock.
    var released: FileLock? = nil
    try await waitUntil("the cancelled transfer to let go of its entry") {
      released = try? FileLock.tryAcquire(cache.lockPath(forFileName: key.fileName))
      return released != nil
    }
    released?.unlock()
    let received = log.all.count
    #expect(cache.cachedFile(for: key) == nil)
    #expect(try cacheContents() == [key.fileName + ".part"])
    #expect(FileManager.default.contents(atPath: cache.partPath(for: key)) == original.prefix(100_000))

    // A later fetch resumes from the part, and the validation still sees the whole file.
    let file = try await fetcher.fetch(url, key: key)
    #expect(FileManager.default.contents(atPath: file.path) == original)
    #expect(file.value == original.count)
    #expect(loader.requests.map(\.offset) == [0, 100_000])
    // The whole resumed download went by without one report to the cancelled callers.
    #expect(log.all.count == received, "no bytes arrive after cancellation")
  }

  @Test func aBrokenOffTransferKeepsItsPartAndTheNextFetchResumesIt() async throws {
    let loader = loader()
    loader.fail(url, atByte: 123_456)
    let fetcher = fetcher(loader)
    let error = await #expect(throws: DownloadError.self) { try await fetcher.fetch(url, key: key) }
    #expect(error?.description.contains("sent 123456 of \(original.count) bytes") == true)
    #expect(try cacheContents() == [key.fileName + ".part"])
    let file = try await fetcher.fetch(url, key: key)
    #expect(FileManager.default.contents(atPath: file.path) == original && file.value == original.count)
    #expect(loader.requests.map(\.offset) == [0, 123_456])
  }

  @Test func fetchersSharingADirectoryDownloadOnce() async throws {
    // Two fetchers have separate in-process registries, like two processes: only the entry's
    // file lock keeps the second from downloading again.
    let loader = loader()
    loader.hold(url, atByte: 100_000)
    let (first, second) = (fetcher(loader), fetcher(loader))
    let a = Task { [url, key] in try await first.fetch(url, key: key) }
    try await waitUntil("the first transfer to be held") { loader.isHeld(url) }
    let b = Task { [url, key] in try await second.fetch(url, key: key) }
    // The second fetch missed the cache and is at the entry lock, which the first holds.
    try await waitUntil("the second fetch to start its transfer") { callers(second) == 1 }
    loader.release(url)
    let (fileA, fileB) = try await (a.value, b.value)
    #expect(!fileA.isCacheHit && fileB.isCacheHit, "the second found the entry once it had the lock")
    #expect(loader.requests.count == 1)
    #expect(FileManager.default.contents(atPath: fileB.path) == original)
  }

  @Test func waitsForAnotherProcessHoldingTheEntryLock() async throws {
    // Another process (python) takes the entry's flock, stores the entry by rename, releases.
    let script = """
      import fcntl, os, shutil, sys, time
      lock, source, entry = sys.argv[1:4]
      with open(lock, "a") as held:
          fcntl.flock(held, fcntl.LOCK_EX)
          print("LOCKED", flush=True)
          time.sleep(0.5)
          shutil.copyfile(source, entry + ".tmp-other")
          os.rename(entry + ".tmp-other", entry)
      """
    let entry = cache.path(for: key)
    let output = try ChildProcess.pipe()
    let other = try ChildProcess.Running(
      [
        "python3", "-c", script, cache.lockPath(forFileName: key.fileName), TestFiles.image("Landscape_1.jpg").path,
        entry,
      ], stdio: [-1, output.writing.fileDescriptor, -1])
    try output.writing.close()
    defer { other.waitUntilExit() }
    let line = try await offThePool { output.reading.availableData }
    #expect(String(decoding: line, as: UTF8.self).hasPrefix("LOCKED"))
    let loader = loader()
    let file = try await fetcher(loader).fetch(url, key: key)
    #expect(file.isCacheHit && file.path == entry)
    #expect(FileManager.default.contents(atPath: file.path) == original)
    #expect(loader.requests.isEmpty)
  }

  /// The cache's entries and `.part` files (not its lock directory or its CACHEDIR.TAG).
  func cacheContents() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: cache.directory).filter {
      !$0.hasPrefix(".") && CacheFile(fileName: $0) != .tag
    }.sorted()
  }
}
