import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

/// Downloads from the fixture Parse server, with faults; the bytes on disk must equal the original.
@Suite(.timeLimit(.minutes(10))) struct DownloaderTests {
  let name = "0123456789abcdef0123456789abcdef_landscape.jpg"
  let original: Data
  let fixture: ParseFixture
  let directory: URL
  var part: URL { directory.appendingPathComponent("landscape.jpg.part") }
  var route: String { "files/\(ParseFixture.appID)/\(name)" }

  init() async throws {
    original = try TestFiles.bytes("Landscape_1.jpg")
    fixture = try await ParseFixture(files: [name: "Landscape_1.jpg"])
    directory = try TestFiles.scratchDirectory()
  }

  func downloader(
    maximumBytes: Int64 = 256 << 20, idleTimeout: TimeInterval = 10, attempts: Int = 3
  )
    -> Downloader
  {
    Downloader(
      options: .init(
        maximumBytes: maximumBytes, idleTimeout: idleTimeout,
        retryPolicy: RetryPolicy(maxAttempts: attempts, initialDelay: .milliseconds(50))))
  }

  func fault(_ kind: String, times: Int = 1, _ extra: [String: Any] = [:]) async throws {
    try await fixture.inject([
      ["target": route, "kind": kind, "times": times].merging(extra) { $1 }
    ])
  }

  @Test func streamsTheWholeFileWithProgress() async throws {
    let log = ProgressLog()
    let size = try await downloader().download(
      from: fixture.fileURL(name), to: part.path, progress: log.handler)
    #expect(size == Int64(original.count))
    #expect(try Data(contentsOf: part) == original)
    let reports = log.all
    #expect(reports.count > 1)
    #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytesReceived < $1.bytesReceived })
    #expect(reports.last?.fraction == 1 && reports.last?.bytesExpected == Int64(original.count))
  }

  /// A consumer slower than the transfer that asks for it (`takesTheRestAtOnce`) gets what is left
  /// of the ended transfer in one piece, marked as the last (`consumeLast`), then `finish`: a decoder
  /// that knows it has every byte can split its work (the 1/8-scale JPEG decoder's second thread).
  @Test func aConsumerSlowerThanTheTransferGetsTheRestAsTheLastPiece() async throws {
    let recorder = RecordingConsumer(takesTheRestAtOnce: true)
    let size = try await downloader().download(from: fixture.fileURL(name), to: part.path, consumer: { recorder })
    #expect(size == Int64(original.count))
    let (calls, bytes, finished) = recorder.record
    #expect(bytes == original)
    #expect(finished)
    #expect(calls.filter(\.last).count == 1, "\(calls)")
    #expect(calls.last?.last == true, "the last piece comes last: \(calls)")
    #expect(calls.count <= 2, "after the slow first piece, the rest in one: \(calls)")
  }

  /// One that does not ask gets read-sized pieces only, none marked last: a transfer costs it one
  /// small read buffer however far the network ran ahead.
  @Test func aConsumerThatDoesNotAskGetsReadSizedPieces() async throws {
    let recorder = RecordingConsumer(takesTheRestAtOnce: false)
    try await downloader().download(from: fixture.fileURL(name), to: part.path, consumer: { recorder })
    let (calls, bytes, finished) = recorder.record
    #expect(bytes == original)
    #expect(finished)
    #expect(calls.allSatisfy { !$0.last && $0.count <= ConsumerRun.readSize }, "\(calls)")
  }

  @Test func resumesAfterATruncatedBody() async throws {
    try await fault("truncate", ["at": 100_000])
    try await downloader().download(from: fixture.fileURL(name), to: part.path)
    #expect(try Data(contentsOf: part) == original)
    #expect(try await fixture.requests(route) == 2)
    #expect(try await fixture.lastHeaders(route)["range"] == "bytes=100000-")
  }

  @Test func resumesAfterADroppedConnection() async throws {
    try await fault("drop", ["at": 150_000])
    try await downloader().download(from: fixture.fileURL(name), to: part.path)
    #expect(try Data(contentsOf: part) == original)
  }

  @Test func reportsATruncationThatNeverHeals() async throws {
    try await fault("truncate", times: -1, ["at": 1000])
    let error = await #expect(throws: DownloadError.self) {
      try await downloader(attempts: 2).download(from: fixture.fileURL(name), to: part.path)
    }
    guard case .truncated? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(FileManager.default.fileExists(atPath: part.path), "partial data is kept for a resume")
  }

  @Test func retriesAServerError() async throws {
    try await fault("status", ["status": 500])
    try await downloader().download(from: fixture.fileURL(name), to: part.path)
    #expect(try Data(contentsOf: part) == original)
    #expect(try await fixture.requests(route) == 2)
  }

  @Test func honoursRetryAfterOn429() async throws {
    try await fault("status", ["status": 429, "retryAfter": 1])
    let start = ContinuousClock.now
    try await downloader().download(from: fixture.fileURL(name), to: part.path)
    #expect(ContinuousClock.now - start >= .seconds(1))
    #expect(try Data(contentsOf: part) == original)
  }

  @Test func doesNotRetryAMissingFile() async throws {
    let missing = fixture.fileURL("0123_missing.jpg")
    let error = await #expect(throws: DownloadError.self) {
      try await downloader().download(from: missing, to: part.path)
    }
    #expect(error?.description.contains("HTTP 404 (File not found.)") == true)
    #expect(try await fixture.requests("files/\(ParseFixture.appID)/0123_missing.jpg") == 1)
    #expect(!FileManager.default.fileExists(atPath: part.path))
  }

  @Test func refusesAnAnnouncedBodyOverTheLimit() async throws {
    let error = await #expect(throws: DownloadError.self) {
      try await downloader(maximumBytes: 1000).download(from: fixture.fileURL(name), to: part.path)
    }
    guard case .tooLarge? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(!FileManager.default.fileExists(atPath: part.path))
  }

  @Test func stopsAnEndlessBodyAtTheLimit() async throws {
    try await fault("endless")
    let error = await #expect(throws: DownloadError.self) {
      try await downloader(maximumBytes: 2 << 20).download(from: fixture.fileURL(name), to: part.path)
    }
    guard case .tooLarge? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(!FileManager.default.fileExists(atPath: part.path))
  }

  @Test func decodesACompressedBody() async throws {
    try await fault("gzip")
    try await downloader().download(from: fixture.fileURL(name), to: part.path)
    #expect(try Data(contentsOf: part) == original)
  }

  @Test func countsTheLimitOnDecodedBytes() async throws {
    let zeros = directory.appendingPathComponent("zeros.bin")
    try Data(count: 3 << 20).write(to: zeros)  // 3 MiB of zeros: a few KiB gzipped
    let fixture = try await ParseFixture(files: ["zeros.bin": zeros.path])
    try await fixture.inject([["target": "files/\(ParseFixture.appID)/zeros.bin", "kind": "gzip"]])
    let error = await #expect(throws: DownloadError.self) {
      try await downloader(maximumBytes: 1 << 20).download(
        from: fixture.fileURL("zeros.bin"), to: part.path)
    }
    guard case .tooLarge? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
  }

  @Test func reportsALyingContentLengthAsTruncated() async throws {
    try await fault("lie", times: -1, ["length": original.count + 5000])
    let error = await #expect(throws: DownloadError.self) {
      try await downloader(attempts: 1).download(from: fixture.fileURL(name), to: part.path)
    }
    guard case .truncated(_, let received, let expected)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(received == Int64(original.count) && expected == Int64(original.count + 5000))
  }

  @Test func followsRedirects() async throws {
    try await fixture.inject([
      [
        "target": "files/\(ParseFixture.appID)/moved.jpg", "kind": "redirect",
        "to": fixture.fileURL(name).absoluteString,
      ]
    ])
    try await downloader().download(from: fixture.fileURL("moved.jpg"), to: part.path)
    #expect(try Data(contentsOf: part) == original)
  }

  @Test func keepsTheSessionTokenAcrossARedirect() async throws {
    let fixture = try await ParseFixture(
      files: [name: "Landscape_1.jpg"], seed: ["filesRequireSession": true])
    let target = fixture.fileURL(name).absoluteString
    try await fixture.inject([
      ["target": "files/\(ParseFixture.appID)/moved.jpg", "kind": "redirect", "to": target]
    ])
    let headers = fixture.configuration(sessionToken: ParseFixture.sessionToken).fileHeaders
    try await downloader().download(from: fixture.fileURL("moved.jpg"), to: part.path, headers: headers)
    #expect(try Data(contentsOf: part) == original)
  }

  @Test func stopsARedirectLoop() async throws {
    try await fault("redirectLoop", times: -1)
    let error = await #expect(throws: DownloadError.self) {
      try await downloader().download(from: fixture.fileURL(name), to: part.path)
    }
    guard case .connection(_, let connectionError)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(connectionError.kind == .tooManyRedirects)
    #expect(error?.description.contains("too many HTTP redirects (more than 20 in a row") == true, "\(error!)")
    #expect(try await fixture.requests(route) == 21, "the first request and 20 redirects, not retried")
  }

  @Test func timesOutAStalledTransfer() async throws {
    // The stall far outlasts the 1 s idle timeout, so only a working watchdog ends this in time,
    // however loaded the machine is. (The bound below includes the wait for a cooperative thread
    // after the error, which the suite's synchronous tests can make minutes long: the stall lasts
    // ten minutes so that the bound can be five.)
    try await fault("stall", times: -1, ["after": 50_000, "seconds": 600])
    let start = ContinuousClock.now
    let error = await #expect(throws: DownloadError.self) {
      try await downloader(idleTimeout: 1, attempts: 1).download(
        from: fixture.fileURL(name), to: part.path)
    }
    #expect(ContinuousClock.now - start < .seconds(300))
    switch error {
    case .idleTimeout?, .truncated?: break
    default: Issue.record("got \(String(describing: error))")
    }
  }

  @Test func cancellationStopsPromptlyAndKeepsThePart() async throws {
    // 1 KB a second, over five minutes: the cancel comes long before the end even when this task
    // waits minutes for a cooperative thread (see `waitUntil`).
    try await fault("trickle", ["chunk": 1024, "delay": 1.0])
    let log = ProgressLog()
    let task = Task { [part, fixture, name] in
      try await downloader().download(from: fixture.fileURL(name), to: part.path, progress: log.handler)
    }
    while log.all.count < 3 { try await Task.sleep(for: .milliseconds(20)) }
    let cancelled = ContinuousClock.now
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
    // Well before the trickle ends (about six minutes): the bytes kept show it, and the time, which
    // includes waits for a cooperative thread, only has to be shorter than the trickle.
    #expect(ContinuousClock.now - cancelled < .seconds(300), "well before the trickle ends")
    let kept = try Data(contentsOf: part)
    #expect(kept.count > 0 && kept.count < original.count, "kept \(kept.count) bytes")
    #expect(original.starts(with: kept))
  }

  @Test func sendsTheSessionTokenWithFileRequests() async throws {
    let fixture = try await ParseFixture(
      files: [name: "Landscape_1.jpg"], seed: ["filesRequireSession": true])
    let config = fixture.configuration(sessionToken: ParseFixture.sessionToken)
    try await downloader().download(
      from: fixture.fileURL(name), to: part.path, headers: config.fileHeaders)
    #expect(try Data(contentsOf: part) == original)
    await #expect(throws: DownloadError.self) {
      try await downloader().download(
        from: fixture.fileURL(name), to: directory.appendingPathComponent("x.part").path)
    }
  }
}

/// Records what a download hands its consumer; the first piece takes half a second, so the transfer
/// (a few hundred KB on loopback) has ended by the next.
final class RecordingConsumer: DownloadConsumer, @unchecked Sendable {
  private let lock = NSLock()
  private var calls: [(last: Bool, count: Int)] = []
  private var bytes = Data()
  private var finished = false

  var record: (calls: [(last: Bool, count: Int)], bytes: Data, finished: Bool) {
    lock.withLock { (calls, bytes, finished) }
  }

  func consume(_ piece: UnsafeRawBufferPointer) throws {
    if lock.withLock({ calls.isEmpty }) { Thread.sleep(forTimeInterval: 0.5) }
    take(piece, last: false)
  }

  func consumeLast(_ piece: UnsafeRawBufferPointer) throws { take(piece, last: true) }

  let takesTheRestAtOnce: Bool
  init(takesTheRestAtOnce: Bool) { self.takesTheRestAtOnce = takesTheRestAtOnce }

  func finish(file: String) throws { lock.withLock { finished = true } }

  private func take(_ piece: UnsafeRawBufferPointer, last: Bool) {
    lock.withLock {
      calls.append((last, piece.count))
      bytes.append(contentsOf: piece)
    }
  }
}
