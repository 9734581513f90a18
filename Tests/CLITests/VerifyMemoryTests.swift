import FixtureSupport
import Foundation
import ImageCodecs
import ParseFetch
import ParseFixtureSupport
import Testing

/// Issue 14.2: `imgfetch verify` hands back no pixels, so it decodes row by row into one scratch row
/// and its memory grows with the width, not the area (it used to hold the whole image: 256 MiB for a
/// 9000x9000 PNG, 110 MiB for a 30 MP JPEG).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct VerifyMemoryTests {
  static let peakLimit = 48 << 20

  @Test func verifyOfA9000SquareRGBPNGStaysUnder48MiB() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let path = scratch.appendingPathComponent("rgb-9000.png").path
    try LargeImages.writeRGBPNG(to: path)  // 243 MB of RGB pixels from a few-MB zlib stream
    let run = try runImgfetchMeasured(["verify", path])
    #expect(run.result.status == 0, "\(run.result.stdoutText)")
    #expect(run.result.stdoutText == "\(path): OK\n")
    #expect(run.peakResidentBytes <= Self.peakLimit, "peak RSS \(run.peakResidentBytes >> 20) MiB")
    // The verdict is still the full decode's: the same file cut short is truncated.
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let cut = scratch.appendingPathComponent("cut.png").path
    try data.prefix(data.count - 5000).write(to: URL(fileURLWithPath: cut))
    let truncated = try runImgfetchMeasured(["verify", cut])
    #expect(truncated.result.status == 4)
    #expect(truncated.result.stderrText.hasPrefix("imgfetch: \(cut): truncated PNG: "))
    #expect(truncated.peakResidentBytes <= Self.peakLimit, "peak RSS \(truncated.peakResidentBytes >> 20) MiB")
  }

  /// The validation of a download hands back no pixels either: fetching the 9000x9000 PNG by URL
  /// (a process that has loaded libcurl and its libraries) decodes it row by row
  /// while it arrives, and the entry is cached. A decode into a whole image would add 243 MB.
  @Test func aDownloadIsValidatedWithoutAPixelBuffer() async throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let path = scratch.appendingPathComponent("rgb-9000.png").path
    try LargeImages.writeRGBPNG(to: path)
    let fixture = try await ParseFixture(files: ["rgb-9000.png": path])
    let cache = scratch.appendingPathComponent("cache")
    let run = try runImgfetchMeasured([fixture.fileURL("rgb-9000.png").absoluteString, "--cache-dir", cache.path])
    #expect(run.result.status == 0, "\(run.result.stderrText)")
    let entries = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter {
      if case .entry = CacheFile(fileName: $0) { true } else { false }
    }
    #expect(entries.count == 1 && run.result.stdoutText == cache.path + "/" + entries[0] + "\n")
    // Under AddressSanitizer its shadow memory and quarantine come on top.
    let limit = Fixtures.imgfetchIsAddressSanitized ? 160 << 20 : 64 << 20
    #expect(run.peakResidentBytes <= limit, "peak RSS \(run.peakResidentBytes >> 20) MiB")
  }

  @Test func verifyOfA30MegapixelJPEGStaysUnder48MiB() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (width, height) = (6336, 4752)  // the corpus's 30.1 MP photo's size
    var image = try Image(width: width, height: height, pixelFormat: .rgb8)
    try image.withUnsafeMutableBytes { pixels in
      for y in 0..<height {
        for x in stride(from: 0, to: width * 3, by: 97) { pixels[y * width * 3 + x] = UInt8(truncatingIfNeeded: x ^ y) }
      }
    }
    let path = scratch.appendingPathComponent("30mp.jpg").path
    try ImageEncoder.write(image, as: .jpeg(quality: 80), to: path)
    let run = try runImgfetchMeasured(["verify", path])
    #expect(run.result.stdoutText == "\(path): OK\n")
    #expect(run.peakResidentBytes <= Self.peakLimit, "peak RSS \(run.peakResidentBytes >> 20) MiB")
  }
}
