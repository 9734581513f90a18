import FixtureSupport
import Foundation
import ImageCodecs
import ParseFixtureSupport
import Testing
import Thumbnails

/// The command line's colour and WebP options, run as a user runs them.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ColorCommandTests {
  static func withCopies<T>(_ names: [String], _ body: (String, [String]) throws -> T) throws -> T {
    let url = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    let paths = try names.map { name in
      let path = url.path + "/" + name
      try FileManager.default.copyItem(atPath: ViewedImage.colorFixture(name), toPath: path)
      return path
    }
    return try body(url.path, paths)
  }

  @Test func webPThumbnailsAreMadeReusedAndSkippedAsSources() throws {
    try Self.withCopies(["display-p3.jpg"]) { directory, sources in
      let first = try runImgfetch(["--thumbnail", "64", "--format", "webp", "--quality", "70", "--json"] + sources)
      #expect(first.status == 0 && first.stderrText.isEmpty)
      let thumbnail = sources[0] + ".thumb-64.webp"
      #expect(first.stdoutText.contains("\"thumbnailPath\":\"\(thumbnail)\"") && first.stdoutText.contains("\"reused\":false"))
      #expect(ThumbnailStamp.read(fromFileAt: thumbnail)?.key.contains("format=webp/70 color=srgb") == true)
      // Again, over the folder's files (the thumbnail among them): reused, and the thumbnail skipped.
      let again = try runImgfetch(["--thumbnail", "64", "--format", "webp", "--quality", "70", "--json", sources[0], thumbnail])
      #expect(again.status == 0)
      #expect(again.stdoutText.contains("\"reused\":true") && again.stdoutText.contains("\"skipped\""))
      let usage = try runImgfetch(["--thumbnail", "64", "--lossless", sources[0]])
      #expect(usage.status == 1 && usage.stderrText.contains("--lossless goes with --format webp"))
    }
  }

  @Test func keepProfileEmbedsTheSourcesProfile() throws {
    try Self.withCopies(["prophoto.png"]) { directory, sources in
      let kept = try runImgfetch(["--thumbnail", "64", "--keep-profile", "-q"] + sources)
      #expect(kept.status == 0)
      let thumbnail = sources[0] + ".thumb-64.jpg"
      #expect(try ImageMetadata.read(contentsOf: thumbnail).colorSpace?.profileDescription == "ProPhoto RGB compatible (imgfetch test)")
      let converted = try runImgfetch(["--thumbnail", "64", "-q"] + sources)
      #expect(converted.status == 0)
      #expect(try ImageMetadata.read(contentsOf: thumbnail).iccProfile == nil)
    }
  }

  /// display-p3.jpg with its profile's tag table cut off: a truncated profile in an otherwise good JPEG.
  static func cutProfile(_ path: String) throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let at = try #require((0..<(bytes.count - 12)).first { bytes[$0..<($0 + 12)].elementsEqual(Array("ICC_PROFILE".utf8) + [0]) })
    let length = Int(bytes[at - 2]) << 8 | Int(bytes[at - 1])
    let cut = 200
    bytes.replaceSubrange((at + 14 + cut)..<(at - 2 + length), with: [])
    bytes[at - 2] = UInt8((14 + cut + 2) >> 8)
    bytes[at - 1] = UInt8((14 + cut + 2) & 0xFF)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  /// A download's thumbnails are made by the fetcher from the download's own decode: the note is
  /// said for them too, once, naming the URL (one size; several, with --thumbnails-only).
  @Test func anUnusableProfileOfADownloadIsSaidOnce() async throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let source = scratch.path + "/cut.jpg"
    try FileManager.default.copyItem(atPath: ViewedImage.colorFixture("display-p3.jpg"), toPath: source)
    try Self.cutProfile(source)
    let name = "0123456789abcdef0123456789abcdef_cut.jpg"
    let fixture = try await ParseFixture(files: [name: source])
    let url = fixture.fileURL(name).absoluteString
    let note = "imgfetch: \(url): ICC profile ignored: truncated (200 of 660 bytes); treated as sRGB\n"
    for (index, more) in [["--thumbnail", "64"], ["--thumbnail", "64,32", "--thumbnails-only"]].enumerated() {
      let cache = scratch.path + "/cache\(index)"
      let run = try runImgfetch([url, "--cache-dir", cache] + more)
      #expect(run.status == 0, "\(more): \(run.stderrText)")
      #expect(run.stderrText == note, "\(more)")
      let reused = try runImgfetch([url, "--cache-dir", cache] + more)
      #expect(reused.status == 0 && reused.stderrText.isEmpty, "said when made, not when reused: \(more)")
    }
  }

  @Test func anUnusableProfileIsSaidOnceOnStandardError() throws {
    try Self.withCopies(["display-p3.jpg"]) { directory, sources in
      try Self.cutProfile(sources[0])
      let run = try runImgfetch(["--thumbnail", "64"] + sources)
      #expect(run.status == 0)
      #expect(run.stderrText == "imgfetch: \(sources[0]): ICC profile ignored: truncated (200 of 660 bytes); treated as sRGB\n")
      let reused = try runImgfetch(["--thumbnail", "64"] + sources)
      #expect(reused.stderrText.isEmpty, "said when made, not when reused")
      let info = try runImgfetch(["info"] + sources)
      #expect(info.stdoutText.contains("\"profileIgnored\":\"ICC profile ignored: truncated (200 of 660 bytes)\""))
    }
  }

  @Test func infoAndDecodeKnowColour() throws {
    try Self.withCopies(["display-p3.jpg"]) { directory, sources in
      let info = try runImgfetch(["info"] + sources)
      #expect(info.stdoutText.contains("\"colorModel\":\"rgb\",\"colorSource\":\"iccProfile\",\"colorProfile\":\"Display P3 (imgfetch test)\",\"sRGB\":false"))
      let output = directory + "/pixels.rgb"
      let decode = try runImgfetch(["decode", sources[0], "--srgb", "-o", output])
      #expect(decode.status == 0)
      let converted = try ImageDecoder.decode(contentsOf: sources[0], options: DecodeOptions(colorSpace: .sRGB))
      #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: output))) == converted.bytes)
    }
  }
}
