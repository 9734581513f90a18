import FixtureSupport
import Foundation
import ImageCodecs
import Testing

@testable import Thumbnails

/// Thumbnails under an output folder that mirrors the source tree: created folders, reuse and
/// stamps there, no collisions, sources outside the root refused; and one's own thumbnails
/// recognised in every format.
@Suite(.timeLimit(.minutes(30))) struct ThumbnailDirectoryTests {
  static func copy(_ fixture: String, to path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Fixtures.image(fixture), toPath: path)
  }

  @Test func theTreeIsMirroredAndReused() throws {
    try TestImages.withTemporaryDirectory { directory in
      let root = directory + "/photos", out = directory + "/thumbs"
      try Self.copy("Landscape_1.jpg", to: root + "/2024/trip/a.jpg")
      try Self.copy("Portrait_2.jpg", to: root + "/2025/a.jpg")
      try Self.copy("basn6a08.png", to: root + "/logo.png")
      var options = ThumbnailOptions(size: .longestSide(64))
      options.outputDirectory = ThumbnailDirectory(path: out, sourceRoot: root)
      let thumbnailer = Thumbnailer(options: options)
      let sources = [root + "/2024/trip/a.jpg", root + "/2025/a.jpg", root + "/logo.png"]
      let made = try sources.map { try thumbnailer.makeThumbnail(forFileAt: $0) }
      #expect(made.map(\.path) == [
        out + "/2024/trip/a.jpg.thumb-64.jpg", out + "/2025/a.jpg.thumb-64.jpg", out + "/logo.png.thumb-64.png",
      ])
      #expect(made.allSatisfy { !$0.reused && FileManager.default.fileExists(atPath: $0.path) })
      #expect(made[0].width != made[1].width, "two a.jpg in two folders keep two thumbnails")
      // Nothing was written next to the originals.
      #expect(TestImages.files(in: root + "/2025") == ["a.jpg"])
      // The second run reuses every one; a changed source is rebuilt in its place.
      #expect(try sources.map { try thumbnailer.makeThumbnail(forFileAt: $0).reused } == [true, true, true])
      try FileManager.default.removeItem(atPath: sources[1])
      try Self.copy("Landscape_1.jpg", to: sources[1])
      let rebuilt = try thumbnailer.makeThumbnail(forFileAt: sources[1])
      #expect(!rebuilt.reused && rebuilt.path == made[1].path && rebuilt.width == made[0].width)
      // Relative paths name the same places.
      let relative = ThumbnailDirectory(path: out, sourceRoot: root + "/2024/../2024")
      #expect(try relative.folder(forSource: root + "/2024/./trip/a.jpg") == out + "/trip")
    }
  }

  @Test func aSourceOutsideTheRootIsRefused() throws {
    let directory = ThumbnailDirectory(path: "/tmp/out", sourceRoot: "/srv/photos")
    #expect(throws: ThumbnailError.self) { try directory.folder(forSource: "/srv/other/a.jpg") }
    #expect(throws: ThumbnailError.self) { try directory.folder(forSource: "/srv/photos/../a.jpg") }
    #expect(ThumbnailDirectory.commonRoot(of: ["/a/b/c/x.jpg", "/a/b/y.jpg", "/a/b/d/e/z.png"]) == "/a/b")
    #expect(ThumbnailDirectory.commonRoot(of: ["/x.jpg", "/a/y.jpg"]) == "/")
  }

  @Test func ownThumbnailsAreRecognisedInEveryFormat() throws {
    try TestImages.withTemporaryDirectory { directory in
      try Self.copy("basn6a08.png", to: directory + "/logo.png")
      for format in [ThumbnailFormat.jpeg(), .png(), .webp(), .webp(lossless: true)] {
        var options = ThumbnailOptions(size: .box(width: 20, height: 10))
        options.fit = .cover
        options.format = format
        let made = try Thumbnailer(options: options).makeThumbnail(forFileAt: directory + "/logo.png")
        #expect(ThumbnailNaming.isThumbnail(fileAt: made.path), "\(made.path)")
        #expect(try Thumbnailer(options: options).makeThumbnail(forFileAt: directory + "/logo.png").reused)
        if format.choice == .webp {
          // WebP keeps the alpha of a source with alpha.
          let pixels = try #require(WebPDecoding.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: made.path)))))
          #expect(stride(from: 3, to: pixels.byteCount, by: 4).contains { pixels.bytes[$0] < 255 })
        }
      }
      // Named as a thumbnail but not made by imgfetch: not one.
      try Self.copy("basn6a08.png", to: directory + "/x.png.thumb-64.png")
      #expect(!ThumbnailNaming.isThumbnail(fileAt: directory + "/x.png.thumb-64.png"))
      #expect(ThumbnailNaming.isThumbnailName("a.jpg.thumb-320x200-cover.webp"))
      #expect(!ThumbnailNaming.isThumbnailName("a.jpg.thumb-256.gif") && !ThumbnailNaming.isThumbnailName(".thumb-256.jpg"))
    }
  }
}
