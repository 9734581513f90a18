import ImgfetchCLI
import Testing

/// The progress line fits the terminal and says what a user wants to know.
@Suite(.timeLimit(.minutes(30))) struct ProgressLineTests {
  @Test func transferWithKnownSize() {
    let line = ProgressLine(
      label: "photo.jpg", bytesReceived: 1_200_000, bytesExpected: 3_400_000, bytesPerSecond: 2_100_000)
    let text = line.render(width: 100)
    #expect(text.hasPrefix("photo.jpg  1.2 MB / 3.4 MB  35% ["))
    #expect(text.hasSuffix("]  2.1 MB/s  ETA 2s"))
    #expect(text.count <= 99)
  }

  @Test func unknownSizeHasNoPercentOrBar() {
    let text = ProgressLine(label: "a.png", bytesReceived: 512).render(width: 80)
    #expect(text == "a.png  512 B")
  }

  @Test func batchShowsItemsDone() {
    let text = ProgressLine(label: "x.jpg", bytesReceived: 10, bytesExpected: 100, items: (12, 40)).render(width: 80)
    #expect(text.hasPrefix("[12/40] x.jpg  10 B / 100 B  10% ["))
  }

  @Test(arguments: [20, 30, 40, 60, 80, 120, 200])
  func neverWiderThanTheTerminal(_ width: Int) {
    let line = ProgressLine(
      label: String(repeating: "verylongname", count: 10) + ".jpg", bytesReceived: 123_456_789,
      bytesExpected: 987_654_321, bytesPerSecond: 4_500_000, items: (123, 4567))
    #expect(line.render(width: width).count <= width - 1)
  }

  @Test func batchLineSaysItemsBytesPercentAndETA() {
    let line = BatchProgressLine(
      done: 37, total: 100, fraction: 0.374, bytesDownloaded: 12_400_000, secondsLeft: 40.2)
    let text = line.render(width: 100)
    #expect(text.hasPrefix("37% [###########"))
    #expect(text.hasSuffix("] 37 of 100 items, 12.4 MB, ETA 41s"))
  }

  @Test func batchLineWithoutATotalSaysItemsDone() {
    #expect(BatchProgressLine(done: 1).render(width: 80) == "1 item done")
    #expect(BatchProgressLine(done: 5, bytesDownloaded: 2_000).render(width: 80) == "5 items done, 2.0 KB")
  }

  @Test(arguments: [10, 20, 30, 40, 60, 80, 120, 200])
  func batchLineNeverWiderThanTheTerminal(_ width: Int) {
    let line = BatchProgressLine(
      done: 1234, total: 98765, fraction: 0.0125, bytesDownloaded: 123_456_789_000, secondsLeft: 7200)
    let text = line.render(width: width)
    #expect(text.count <= max(10, width - 1))
    if width >= 40 { #expect(text.contains("1234 of 98765 items")) }
  }

  @Test func shardsCoverEveryKeyExactlyOnce() throws {
    let shards = try (1...4).map { (k: Int) throws(UsageError) in try Shard(parsing: "\(k)/4") }
    for n in 0..<2000 {
      let key = "obj\(n)"
      #expect(shards.filter { $0.contains(key) }.count == 1)
    }
    // Stable across runs and machines: a fixed key always lands in the same shard.
    #expect(try Shard(parsing: "3/4").contains("Ed1nuqPvcm") == (Int(referenceFNV1a("Ed1nuqPvcm") % 4) == 2))
  }

  @Test func badShardsAreUsageErrors() {
    for text in ["0/4", "5/4", "1/0", "a/b", "1", "1/2/3", ""] {
      #expect(throws: UsageError.self, "\(text)") { try Shard(parsing: text) }
    }
  }
}

/// FNV-1a 64 written out independently, to pin the shard function.
func referenceFNV1a(_ key: String) -> UInt64 {
  key.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
}
