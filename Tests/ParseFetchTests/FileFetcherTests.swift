import Foundation
import ParseFixtureSupport
import Synchronization
import Testing

@testable import ParseFetch

/// The cache in front of the downloader: validation before storing, hits without requests,
/// one transfer per file, and cancellation per caller.
@Suite(.timeLimit(.minutes(10))) struct FileFetcherTests {
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

  func fetcher(validate: @escaping FileFetcher<Int>.Validator = TestFiles.validateImage)
    -> FileFetcher<Int>
  {
    let retry = RetryPolicy(maxAttempts: 3, initialDelay: .milliseconds(50))
    return FileFetcher(
      cache: cache, downloader: Downloader(options: .init(retryPolicy: retry)), validate: validate)
  }

  func trickle() async throws {
    try await fixture.inject([["target": route, "kind": "trickle", "chunk": 8192, "delay": 0.1]])
  }

  @Test func storesAValidatedDownloadAndHandsBackTheValue() async throws {
    let file = try await fetcher().fetch(fixture.fileURL(name), key: key)
    #expect(
      !file.isCacheHit && file.value == original.count && file.byteCount == Int64(original.count))
    #expect(FileManager.default.contents(atPath: file.path) == original)
    #expect(file.path == cache.path(for: key))
  }

  @Test func aHitCostsNoRequestAndReportsCompletionOnce() async throws {
    let fetcher = fetcher()
    _ = try await fetcher.fetch(fixture.fileURL(name), key: key)
    let log = ProgressLog()
    let hit = try await fetcher.fetch(fixture.fileURL(name), key: key, progress: log.handler)
    #expect(hit.isCacheHit && hit.value == nil)
    #expect(
      log.all == [
        DownloadProgress(bytesReceived: Int64(original.count), bytesExpected: Int64(original.count))
      ])
    #expect(try await fixture.requests(route) == 1)
  }

  @Test func deletesADownloadThatFailsValidation() async throws {
    try await fixture.inject([["target": route, "kind": "notImage"]])
    let error = await #expect(throws: CacheError.self) {
      try await fetcher().fetch(fixture.fileURL(name), key: key)
    }
    guard case .validationFailed(let failed, let underlying)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failed == key && underlying is TestFiles.NotAnImage)
    #expect(error?.description.contains("not a complete PNG or JPEG") == true)
    #expect(try cacheContents().isEmpty)
  }

  @Test func sharesOneTransferAmongConcurrentCallers() async throws {
    try await trickle()
    let validations = Atomic<Int>(0)
    let fetcher = fetcher { url in
      validations.add(1, ordering: .relaxed)
      return try TestFiles.validateImage(url)
    }
    let logs = (0..<8).map { _ in ProgressLog() }
    let files = try await withThrowingTaskGroup(of: FetchedFile<Int>.self) { group in
      for log in logs {
        group.addTask { [fixture, name, key] in
          try await fetcher.fetch(fixture.fileURL(name), key: key, progress: log.handler)
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(files.count == 8 && files.allSatisfy { $0.value == original.count && !$0.isCacheHit })
    #expect(try await fixture.requests(route) == 1)
    #expect(validations.load(ordering: .relaxed) == 1)
    #expect(logs.allSatisfy { $0.all.last?.fraction == 1 }, "each caller gets its own progress")
  }

  @Test func cancellingOneCallerLeavesTheOthersRunning() async throws {
    try await trickle()
    let fetcher = fetcher()
    let log = ProgressLog()
    let leaving = Task { [fixture, name, key] in
      try await fetcher.fetch(fixture.fileURL(name), key: key, progress: log.handler)
    }
    let staying = Task { [fixture, name, key] in
      try await fetcher.fetch(fixture.fileURL(name), key: key)
    }
    while log.all.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    leaving.cancel()
    await #expect(throws: CancellationError.self) { try await leaving.value }
    let file = try await staying.value
    #expect(FileManager.default.contents(atPath: file.path) == original)
    #expect(try await fixture.requests(route) == 1)
  }

  @Test func cancellingEveryCallerStopsTheTransferAndKeepsThePart() async throws {
    try await trickle()
    let fetcher = fetcher()
    let log = ProgressLog()
    let tasks = (0..<3).map { _ in
      Task { [fixture, name, key] in
        try await fetcher.fetch(fixture.fileURL(name), key: key, progress: log.handler)
      }
    }
    while log.all.count < 6 { try await Task.sleep(for: .milliseconds(10)) }
    for task in tasks { task.cancel() }
    for task in tasks { await #expect(throws: CancellationError.self) { try await task.value } }
    // The transfer holds the entry's lock until it has stopped: wait for that event, not a clock.
    let deadline = ContinuousClock.now + .seconds(30)
    var released: FileLock? = nil
    while released == nil, ContinuousClock.now < deadline {
      released = try FileLock.tryAcquire(cache.lockPath(forFileName: key.fileName))
      if released == nil { try await Task.sleep(for: .milliseconds(10)) }
    }
    try #require(released != nil, "the cancelled transfer let go of its entry")
    released?.unlock()
    let received = log.all.count
    #expect(cache.cachedFile(for: key) == nil)
    #expect(try cacheContents() == [key.fileName + ".part"])

    // A later fetch resumes from the part.
    let file = try await fetcher.fetch(fixture.fileURL(name), key: key)
    #expect(FileManager.default.contents(atPath: file.path) == original)
    #expect(try await fixture.lastHeaders(route)["range"]?.hasPrefix("bytes=") == true)
    // The whole resumed download went by without one report to the cancelled callers.
    #expect(log.all.count == received, "no bytes arrive after cancellation")
  }

  @Test func fetchersSharingADirectoryDownloadOnce() async throws {
    // Two fetchers have separate in-process registries, like two processes: only the entry's
    // file lock keeps them from downloading twice.
    try await trickle()
    let first = fetcher()
    let second = fetcher()
    async let a = first.fetch(fixture.fileURL(name), key: key)
    async let b = second.fetch(fixture.fileURL(name), key: key)
    let (fileA, fileB) = try await (a, b)
    #expect(try await fixture.requests(route) == 1)
    #expect([fileA.isCacheHit, fileB.isCacheHit].sorted { !$0 && $1 } == [false, true])
    #expect(FileManager.default.contents(atPath: fileA.path) == original)
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
    let other = Process()
    other.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    other.arguments = [
      "python3", "-c", script, cache.lockPath(forFileName: key.fileName),
      TestFiles.image("Landscape_1.jpg").path, entry,
    ]
    let output = Pipe()
    other.standardOutput = output
    try other.run()
    let line = await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: output.fileHandleForReading.availableData) }.start()
    }
    #expect(String(decoding: line, as: UTF8.self).hasPrefix("LOCKED"))
    let file = try await fetcher().fetch(fixture.fileURL(name), key: key)
    #expect(file.isCacheHit && file.path == entry)
    #expect(FileManager.default.contents(atPath: file.path) == original)
    #expect(try await fixture.requests(route) == 0)
  }

  /// Every fault ends in a valid entry or a clear error, with nothing in the cache but a
  /// resumable `.part` file.
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
        #expect(
          original.starts(with: try Data(contentsOf: URL(fileURLWithPath: cache.directory + "/" + part))))
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
