import Foundation
import ParseFetch
import Synchronization
import SystemFiles

/// A real ``DataLoading`` that serves local files instead of a network: the in-process stand-in
/// for ``Downloader`` in the tests whose subject is the fetch and cache logic above it.
///
/// It keeps the role's contract as the downloader does: it writes the `.part` file in chunks,
/// resumes from the bytes the `.part` file already holds (which the consumer sees first), feeds
/// each attempt's consumer the whole file from byte 0 and then `finish(file:)`, throws the
/// consumer's error unchanged, reports progress, and leaves the `.part` file in place when it is
/// cancelled or breaks off. The transfer runs on a thread of its own (the downloader's consumers
/// run on a serial queue), never on Swift's cooperative pool, so a consumer that blocks (waiting
/// for a decode slot) blocks no task.
///
/// Tests steer it: ``hold(_:atByte:)`` stops the next transfer of a URL at a byte until
/// ``release(_:)`` (or cancellation), ``fail(_:atByte:)`` breaks the next transfer off there, and
/// ``requests`` and ``events`` say what it was asked and what it did.
public final class LocalFileLoader: DataLoading, @unchecked Sendable {
  /// One download it was asked for.
  public struct Request: Sendable, Equatable {
    /// The URL asked for.
    public var url: URL
    /// The byte the transfer started from: the `.part` file's size when it was resumed, else 0.
    public var offset: Int
    /// The request headers it was given.
    public var headers: [String: String]
  }

  struct State {
    var requests: [Request] = []
    var events: [String] = []
    var holds: [URL: Int] = [:]
    var held: Set<URL> = []
    var failures: [URL: Int] = [:]
    var written: [URL: Int] = [:]
  }

  let files: [URL: String]
  let chunkSize: Int
  let state = Locked(State())
  let changed = NSCondition()

  /// Serves `files` (URL → local path); a URL not in it answers 404.
  /// - Parameters:
  ///   - files: The local file behind each URL.
  ///   - chunkSize: The bytes written (and handed to the consumer) at a time.
  public init(_ files: [URL: String], chunkSize: Int = 16 << 10) {
    self.files = files
    self.chunkSize = chunkSize
  }

  /// The downloads asked for so far, in order.
  public var requests: [Request] { state.withLock { $0.requests } }

  /// What happened so far, in order: `<name> consumed <bytes>` after each chunk the consumer
  /// took, `<name> held at <byte>`, `<name> finished` once the consumer accepted the file.
  public var events: [String] { state.withLock { $0.events } }

  /// How many bytes the last transfer of `url` had written when it ended (or has written so far).
  /// - Parameter url: The URL.
  /// - Returns: The byte count, 0 when it was never asked for.
  public func bytesWritten(_ url: URL) -> Int { state.withLock { $0.written[url] ?? 0 } }

  /// Adds an event of the test's own to ``events``.
  /// - Parameter event: The text.
  public func log(_ event: String) { state.withLock { $0.events.append(event) } }

  /// Stops the next transfer of `url` once it has written `byte` bytes, until ``release(_:)``.
  /// - Parameters:
  ///   - url: The URL.
  ///   - byte: How many bytes are written (and consumed) before it stops.
  public func hold(_ url: URL, atByte byte: Int) { state.withLock { $0.holds[url] = byte } }

  /// Lets a held transfer of `url` go on.
  /// - Parameter url: The URL.
  public func release(_ url: URL) {
    changed.lock()
    state.withLock {
      $0.held.remove(url)
      $0.holds[url] = nil
    }
    changed.broadcast()
    changed.unlock()
  }

  /// Whether a transfer of `url` is stopped at its hold now.
  /// - Parameter url: The URL.
  /// - Returns: True while it is held.
  public func isHeld(_ url: URL) -> Bool { state.withLock { $0.held.contains(url) } }

  /// Breaks the next transfer of `url` off after `byte` bytes, as a dropped connection would
  /// (``DownloadError/truncated(url:received:expected:)``, the `.part` file kept).
  /// - Parameters:
  ///   - url: The URL.
  ///   - byte: How many bytes arrive first.
  public func fail(_ url: URL, atByte byte: Int) { state.withLock { $0.failures[url] = byte } }

  /// Copies `url`'s file into `partFile` chunk by chunk; see the type's summary.
  /// - Parameters:
  ///   - url: Which file.
  ///   - partFile: The `.part` file's path.
  ///   - headers: Recorded in ``requests``.
  ///   - headersOrigin: Unused (no request leaves the process).
  ///   - consumer: Makes the attempt's consumer.
  ///   - progress: Called after each chunk.
  /// - Returns: The file's size.
  public func download(
    from url: URL, to partFile: String, headers: [String: String], headersOrigin: URL?,
    consumer: DownloadConsumerFactory?, progress: ProgressHandler?
  ) async throws -> Int64 {
    let transfer = Transfer()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let work = UncheckedWork { [self] in
          try run(url, partFile, headers, consumer?(), progress, transfer)
        }
        Thread { continuation.resume(with: Result { try work.body() }) }.start()
      }
    } onCancel: {
      transfer.cancelled.store(true, ordering: .relaxed)
      changed.lock()
      changed.broadcast()
      changed.unlock()
    }
  }

  final class Transfer: Sendable {
    let cancelled = Atomic<Bool>(false)
  }

  struct UncheckedWork: @unchecked Sendable {
    let body: () throws -> Int64
  }

  private func run(
    _ url: URL, _ partFile: String, _ headers: [String: String], _ sink: (any DownloadConsumer)?,
    _ progress: ProgressHandler?, _ transfer: Transfer
  ) throws -> Int64 {
    let name = url.lastPathComponent
    guard let source = files[url] else {
      state.withLock { $0.requests.append(Request(url: url, offset: 0, headers: headers)) }
      throw DownloadError.httpStatus(url: url.absoluteString, status: 404, excerpt: "", retryAfter: nil)
    }
    // Read through SystemFiles, not Data(contentsOf:): FoundationEssentials (Swift 6.3) leaks a
    // 4 KiB buffer each time that reads an empty file, which LeakSanitizer reports (the verdict
    // corpora have empty inputs).
    let body = Data(try ReadableFile(path: source).readAll())
    let kept = (try? FileManager.default.attributesOfItem(atPath: partFile)[.size] as? Int) ?? 0
    let offset = kept <= body.count ? kept : 0  // more than the file: start again, as on a 200
    state.withLock { $0.requests.append(Request(url: url, offset: offset, headers: headers)) }
    // Created in place, as the downloader does (no hidden temporary file beside it).
    let descriptor = open(partFile, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw DownloadError.file(path: partFile, reason: "cannot create") }
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    defer { try? handle.close() }
    try handle.truncate(atOffset: UInt64(offset))
    // A resumed attempt's consumer first gets the bytes already on disk.
    try handle.seek(toOffset: 0)
    if offset > 0, let sink, let onDisk = try handle.read(upToCount: offset) {
      try onDisk.withUnsafeBytes { try sink.consume($0) }
    }
    try handle.seekToEnd()
    var written = offset
    state.withLock { $0.written[url] = offset }
    while written < body.count {
      if transfer.cancelled.load(ordering: .relaxed) { throw CancellationError() }
      let (hold, failure) = state.withLock { ($0.holds[url], $0.failures[url]) }
      var end = min(body.count, written + chunkSize)
      for stop in [hold, failure].compactMap({ $0 }) where stop > written { end = min(end, stop) }
      let chunk = body[written..<end]
      try handle.write(contentsOf: chunk)
      written = end
      state.withLock { [written] in $0.written[url] = written }
      try chunk.withUnsafeBytes { try sink?.consume($0) }
      log("\(name) consumed \(written)")
      progress?(DownloadProgress(bytesReceived: Int64(written), bytesExpected: Int64(body.count)))
      if failure == written {
        state.withLock { $0.failures[url] = nil }
        throw DownloadError.truncated(url: url.absoluteString, received: Int64(written), expected: Int64(body.count))
      }
      if hold == written { try wait(url, at: written, transfer) }
    }
    try sink?.finish(file: partFile)
    log("\(name) finished")
    return Int64(body.count)
  }

  /// Stays at the hold until it is released or the transfer is cancelled.
  private func wait(_ url: URL, at byte: Int, _ transfer: Transfer) throws {
    changed.lock()
    defer { changed.unlock() }
    state.withLock {
      $0.held.insert(url)
      $0.events.append("\(url.lastPathComponent) held at \(byte)")
    }
    while state.withLock({ $0.held.contains(url) }) {
      if transfer.cancelled.load(ordering: .relaxed) {
        _ = state.withLock { $0.held.remove(url) }
        throw CancellationError()
      }
      changed.wait()
    }
  }
}
