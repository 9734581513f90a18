import Foundation
import ImageCodecs
import ImageFetch
import ParseFetch
import ParseFixtureSupport
import Testing

/// A batch downloads ahead of its decodes, but no more downloads are decoded at once than the
/// fetcher has decode slots (so memory stays within slots x one decoder's working set). In
/// process: ``LocalFileLoader`` holds the first transfer half-way, so its decode keeps its slot.
@Suite(.timeLimit(.minutes(10))) struct DecodeSlotTests {

  @Test(arguments: [1, 2]) func decodesNoMoreAtOnceThanItHasSlots(_ slots: Int) async throws {
    let first = URL(string: "https://files.example/a.jpg")!
    let second = URL(string: "https://files.example/b.jpg")!
    let image = TestFiles.image("Landscape_1.jpg").path
    let loader = LocalFileLoader([first: image, second: image])
    loader.hold(first, atByte: try TestFiles.bytes("Landscape_1.jpg").count / 2)
    let fetcher = try ImageFetcher(
      cache: try DiskCache(directory: try TestFiles.scratchDirectory().path), downloader: loader,
      maxConcurrentDecodes: slots)
    #expect(fetcher.maxConcurrentDecodes == slots)
    let a = Task { try await fetcher.cachedFile(at: first) }
    try await waitUntil("a.jpg's decode to stop half-way") { loader.isHeld(first) }
    let b = Task { try await fetcher.cachedFile(at: second) }
    try await waitUntil("b.jpg's transfer") { loader.requests.contains { $0.url == second } }
    if slots > 1 {
      // A free slot: the second decode runs beside the first, which is still waiting.
      try await waitUntil("b.jpg's verdict") { loader.events.contains("b.jpg finished") }
    }
    loader.log("gate opened")
    loader.release(first)
    let (fileA, fileB) = try await (a.value, b.value)
    #expect(fileA.value?.width == 1800 && fileB.value?.width == 1800)
    let events = loader.events
    let bDecodes = try #require(events.firstIndex { $0.hasPrefix("b.jpg consumed") })
    // The first decode holds its slot until its verdict, which needs the transfer released.
    let opened = try #require(events.firstIndex(of: "gate opened"))
    if slots == 1 {
      #expect(bDecodes > opened, "the second decode waited for the only slot: \(events)")
    } else {
      #expect(bDecodes < opened, "\(events)")
    }
  }
}
