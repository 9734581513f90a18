import Foundation
import ImageCodecs
import ImageFetch
import ParseFetch
import ParseFixtureSupport
import Synchronization
import Testing

/// A batch downloads ahead of its decodes, but no more downloads are decoded at once than the
/// fetcher has decode slots (so memory stays within slots x one decoder's working set).
@Suite struct DecodeSlotTests {
  /// Serves bytes from memory on a thread of its own (like a session's consumer queue), logging
  /// events; the first URL's transfer stops after its first chunk until `gate` is signalled.
  final class GatedLoader: DataLoading {
    let files: [URL: Data]
    let gated: URL
    let gate = DispatchSemaphore(value: 0)
    let events = Mutex<[String]>([])

    init(_ files: [URL: Data], gated: URL) {
      self.files = files
      self.gated = gated
    }

    func log(_ event: String) { events.withLock { $0.append(event) } }
    var logged: [String] { events.withLock { $0 } }

    func download(
      from url: URL, to partFile: String, headers: [String: String], headersOrigin: URL?,
      consumer: DownloadConsumerFactory?, progress: ProgressHandler?
    ) async throws -> Int64 {
      let body = files[url]!
      let name = url.lastPathComponent
      let sink = UncheckedSink(consumer?())
      return try await withCheckedThrowingContinuation { continuation in
        Thread { [self] in
          continuation.resume(
            with: Result {
              try body.write(to: URL(fileURLWithPath: partFile))
              let half = body.count / 2
              self.log("\(name) consumes")
              try body.prefix(half).withUnsafeBytes { try sink.value?.consume($0) }
              self.log("\(name) consumed")
              if url == gated { gate.wait() }
              try body.dropFirst(half).withUnsafeBytes { try sink.value?.consume($0) }
              try sink.value?.finish(file: partFile)
              self.log("\(name) finished")
              return Int64(body.count)
            })
        }.start()
      }
    }
  }

  struct UncheckedSink: @unchecked Sendable {
    let value: (any DownloadConsumer)?
    init(_ value: (any DownloadConsumer)?) { self.value = value }
  }

  @Test(arguments: [1, 2]) func decodesNoMoreAtOnceThanItHasSlots(_ slots: Int) async throws {
    let first = URL(string: "https://files.example/a.jpg")!
    let second = URL(string: "https://files.example/b.jpg")!
    let bytes = try TestFiles.bytes("Landscape_1.jpg")
    let loader = GatedLoader([first: bytes, second: bytes], gated: first)
    let fetcher = try ImageFetcher(
      cache: try DiskCache(directory: try TestFiles.scratchDirectory().path), downloader: loader,
      maxConcurrentDecodes: slots)
    #expect(fetcher.maxConcurrentDecodes == slots)
    let a = Task { try await fetcher.cachedFile(at: first) }
    while !loader.logged.contains("a.jpg consumed") { try await Task.sleep(for: .milliseconds(5)) }
    let b = Task { try await fetcher.cachedFile(at: second) }
    while !loader.logged.contains("b.jpg consumes") { try await Task.sleep(for: .milliseconds(5)) }
    if slots > 1 {
      // A free slot: the second decode runs beside the first, which is still waiting.
      while !loader.logged.contains("b.jpg finished") { try await Task.sleep(for: .milliseconds(5)) }
    }
    loader.log("gate opened")
    loader.gate.signal()
    _ = try await (a.value, b.value)
    let events = loader.logged
    let bDecodes = try #require(events.firstIndex(of: "b.jpg consumed"))
    // The first decode holds its slot until its verdict, which needs the gate opened.
    let opened = try #require(events.firstIndex(of: "gate opened"))
    if slots == 1 {
      #expect(bDecodes > opened, "the second decode waited for the only slot: \(events)")
    } else {
      #expect(bDecodes < opened, "\(events)")
    }
  }
}
