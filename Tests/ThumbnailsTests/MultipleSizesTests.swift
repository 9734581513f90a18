import FixtureSupport
import Foundation
@_spi(Fuzzing) import ImageCodecs
import Testing

@testable import Thumbnails

/// Several sizes from one decode (`--thumbnail 64,256,1024`, issue 32): the source is decoded
/// once, at the scale the largest size needs, and each file is what a run for that size alone
/// writes (the very pixels where that run decodes at the same scale).
@Suite(.timeLimit(.minutes(10))) struct MultipleSizesTests {
  static let sizes: [ThumbnailSize] = [.longestSide(64), .longestSide(256), .longestSide(1024)]

  /// The pixels of a thumbnail file.
  static func pixels(_ path: String) throws -> Image { try ImageDecoder.decode(contentsOf: path) }

  /// The thumbnail a run for one size writes, made from a copy of the source in its own folder.
  static func alone(_ source: String, size: ThumbnailSize, in directory: String) throws -> Image {
    let copy = directory + "/alone-\(size)-" + (source.split(separator: "/").last.map(String.init) ?? source)
    try FileManager.default.copyItem(atPath: source, toPath: copy)
    let result = try Thumbnailer(options: ThumbnailOptions(size: size)).makeThumbnail(forFileAt: copy)
    return try pixels(result.path)
  }

  /// A 1800x1200 JPEG: 1024 decodes at full scale, 256 would at 1/2 and 64 at 1/8 alone.
  @Test func aJPEGIsDecodedOnceAndTheLargestIsTheSingleRunsPixels() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = directory + "/photo.jpg"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: source)
      let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(64)))
      let made = try thumbnailer.makeThumbnails(forFileAt: source, sizes: Self.sizes)

      #expect(
        made.map(\.path)
          == Self.sizes.map { ThumbnailNaming.path(forSource: source, size: $0, fit: .inside, format: .jpeg) })
      #expect(made.map { [$0.width, $0.height] } == [[64, 43], [256, 171], [1024, 683]])
      #expect(made.allSatisfy { !$0.reused })
      // The largest: the very pixels of its own run.
      #expect(try Self.pixels(made[2].path) == Self.alone(source, size: .longestSide(1024), in: directory))
      // The smaller ones are box-shrunk from the finer decode: the same picture, within a few levels.
      for index in 0..<2 {
        let own = try Self.alone(source, size: Self.sizes[index], in: directory)
        let mine = try Self.pixels(made[index].path)
        #expect((mine.width, mine.height) == (own.width, own.height))
        #expect(ImageMetrics.psnr(mine, own) > 30, "\(ImageMetrics.psnr(mine, own)) dB")
      }
      // A second call reuses every file and decodes nothing.
      let again = JPEGEngineCounts.current()
      let reused = try thumbnailer.makeThumbnails(forFileAt: source, sizes: Self.sizes)
      #expect(reused.allSatisfy(\.reused) && reused.map(\.path) == made.map(\.path))
      #expect(JPEGEngineCounts.current() == again)
    }
  }

  /// A PNG has no shrink-on-load: every size is decoded at full scale alone too, so every file is
  /// the very pixels of its own run.
  @Test func everySizeOfAPNGIsTheSingleRunsPixels() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = directory + "/art.png"
      try TestImages.write(TestImages.pattern(width: 1500, height: 900, format: .rgba8), as: PNGEncoder(), to: source)
      let before = PNGRowsCounts.current()
      let made = try Thumbnailer(options: ThumbnailOptions(size: .longestSide(1))).makeThumbnails(
        forFileAt: source, sizes: Self.sizes + [.box(width: 100, height: 100)])
      let after = PNGRowsCounts.current()
      #expect(after.finished + after.gaveUp - before.finished - before.gaveUp == 1, "one decode for four sizes")
      // The counter sees every decode: four runs of one size decode four times.
      let single = PNGRowsCounts.current()
      for size in Self.sizes + [.box(width: 100, height: 100)] {
        _ = try Thumbnailer(options: ThumbnailOptions(size: size)).image(contentsOf: source)
      }
      let singles = PNGRowsCounts.current()
      #expect(singles.finished + singles.gaveUp - single.finished - single.gaveUp == 4)
      #expect(made.count == 4 && made.allSatisfy { $0.format == .png })
      for (result, size) in zip(made, Self.sizes + [.box(width: 100, height: 100)]) {
        #expect(try Self.pixels(result.path) == Self.alone(source, size: size, in: directory), "\(size)")
      }
    }
  }

  /// A decode made before (a download's validating decode, at ``Thumbnailer/scale(for:sizes:)``)
  /// gives the very files the source's own decode gives; a decode at another scale (made for other
  /// sizes) is not used, and the files are still the same.
  @Test func aDecodeMadeBeforeGivesTheSameFiles() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = directory + "/photo.jpg"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: source)
      let sizes: [ThumbnailSize] = [.longestSide(64), .longestSide(256)]
      let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(64)))
      let header = try ImageDecoder.probe(contentsOf: source)
      let scale = thumbnailer.scale(for: header, sizes: sizes)
      #expect(scale.eighths == 4, "256 of 1800 decodes at 1/2")
      func files(_ made: [ThumbnailResult]) throws -> [Data] {
        let contents = try made.map { try Data(contentsOf: URL(fileURLWithPath: $0.path)) }
        for result in made { try FileManager.default.removeItem(atPath: result.path) }
        return contents
      }
      let own = try files(thumbnailer.makeThumbnails(forFileAt: source, sizes: sizes))
      for eighths in [scale.eighths, 1] {
        var options = thumbnailer.decodeOptions
        options.jpegScale = JPEGScale(eighths: eighths)
        let decoded = try ImageDecoder.decode(contentsOf: source, options: options)
        let made = try thumbnailer.makeThumbnails(forFileAt: source, sizes: sizes, from: decoded, header: header)
        #expect(made.map { [$0.width, $0.height] } == [[64, 43], [256, 171]])
        #expect(try files(made) == own, "a decode at \(eighths)/8")
      }
    }
  }
}
