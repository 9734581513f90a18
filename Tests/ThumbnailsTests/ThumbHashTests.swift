import Foundation
import ImageCodecs
import Testing
import Thumbnails

/// ThumbHash (issue 32, `--placeholder thumbhash`): a hash decodes back to a preview whose colours
/// are the image's, it is short, and a thumbnail's result carries it.
@Suite(.timeLimit(.minutes(5))) struct ThumbHashTests {
  /// An image from a function of (x, y) giving RGBA.
  static func image(width: Int, height: Int, _ colour: (Int, Int) -> [UInt8]) -> Image {
    var bytes: [UInt8] = []
    for y in 0..<height { for x in 0..<width { bytes += colour(x, y) } }
    return Image(width: width, height: height, pixelFormat: .rgba8, bytes: bytes)!
  }

  /// The alpha-weighted average colour (0...255) and the average alpha (0...1) of an rgba8 image.
  static func average(_ image: Image) -> (rgb: [Double], alpha: Double) {
    image.withUnsafeBytes { bytes in
      var (sums, alpha) = ([0.0, 0.0, 0.0], 0.0)
      for index in stride(from: 0, to: image.byteCount, by: 4) {
        let weight = Double(bytes[index + 3]) / 255
        for channel in 0..<3 { sums[channel] += Double(bytes[index + channel]) * weight }
        alpha += weight
      }
      return (sums.map { $0 / max(alpha, 1e-9) }, alpha / Double(image.width * image.height))
    }
  }

  static let cases: [(String, Image)] = [
    ("solid", image(width: 60, height: 40) { _, _ in [200, 60, 30, 255] }),
    (
      "gradient",
      image(width: 80, height: 80) { x, y in [UInt8(50 + x * 150 / 79), 100, UInt8(200 - y * 150 / 79), 255] }
    ),
    (
      "large gradient",
      image(width: 300, height: 200) { x, _ in [UInt8(40 + x * 170 / 299), UInt8(180 - x / 3), 90, 255] }
    ),
    ("alpha", image(width: 64, height: 64) { x, _ in x < 32 ? [0, 255, 0, 0] : [20, 40, 230, 255] }),
  ]

  @Test(arguments: cases.map(\.0))
  func decodesToAPreviewOfTheSameAverageColour(name: String) throws {
    let source = try #require(Self.cases.first { $0.0 == name }?.1)
    let hash = ThumbHash(image: source)
    let preview = hash.rendered()
    let (want, got) = (Self.average(source), Self.average(preview))
    for channel in 0..<3 {
      #expect(abs(got.rgb[channel] - want.rgb[channel]) <= 12, "\(name) channel \(channel): \(got) vs \(want)")
    }
    #expect(abs(got.alpha - want.alpha) <= 0.06, "\(name) alpha: \(got.alpha) vs \(want.alpha)")
    // The hash's own constant terms say the same.
    let stated = hash.averageColor
    for (value, expected) in zip([stated.red, stated.green, stated.blue], want.rgb) {
      #expect(abs(value * 255 - expected) <= 12, "\(name) stated average")
    }
    #expect(
      hash.hasAlpha
        == source.withUnsafeBytes { bytes in stride(from: 3, to: bytes.count, by: 4).contains { bytes[$0] < 255 } })
    // The preview is in the image's shape.
    let aspect = Double(source.width) / Double(source.height)
    #expect(abs(hash.approximateAspectRatio - aspect) / aspect < 0.25, "\(name): \(hash.approximateAspectRatio)")
    #expect(abs(Double(preview.width) / Double(preview.height) - aspect) / aspect < 0.25)
    #expect(max(preview.width, preview.height) == 32)
    // Base64 round trip.
    #expect(ThumbHash(base64: hash.base64) == hash)
    #expect(ThumbHash(base64: String(hash.base64.prefix(while: { $0 != "=" }))) == hash)
  }

  @Test func anOpaqueImageHashesToAtMost25Bytes() {
    for (name, image) in Self.cases where name != "alpha" {
      let hash = ThumbHash(image: image)
      #expect(hash.bytes.count <= 25, "\(name): \(hash.bytes.count) bytes")
      #expect(!hash.hasAlpha)
    }
    // The largest an opaque hash gets is a square image's: 5 + 19 bytes.
    let square = Self.image(width: 50, height: 50) { x, y in [UInt8(x * 5), UInt8(y * 5), 128, 255] }
    #expect(ThumbHash(image: square).bytes.count == 24)
  }

  @Test func truncatedOrForeignBytesAreRefused() {
    let hash = ThumbHash(image: Self.cases[1].1)
    #expect(ThumbHash(bytes: Array(hash.bytes.dropLast())) == nil)
    #expect(ThumbHash(bytes: [1, 2, 3]) == nil)
    #expect(ThumbHash(base64: "not base64!") == nil)
    #expect(ThumbHash(bytes: hash.bytes) == hash)
  }

  @Test func aThumbnailResultCarriesTheHashOfItsFileWhenAskedFor() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbhash-\(UUID())").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let source = directory + "/gradient.png"
    try ImageEncoder.write(Self.cases[2].1, as: .png(), to: source)
    var options = ThumbnailOptions(size: .longestSide(150))
    #expect(try Thumbnailer(options: options).makeThumbnail(forFileAt: source).thumbHash == nil)
    options.makesThumbHash = true
    options.remakesCurrentThumbnails = true
    let made = try Thumbnailer(options: options).makeThumbnail(forFileAt: source)
    let hash = try #require(made.thumbHash)
    let written = try ImageDecoder.decode(contentsOf: made.path, options: DecodeOptions(pixelFormat: .rgba8))
    let (want, got) = (Self.average(written), Self.average(hash.rendered()))
    for channel in 0..<3 { #expect(abs(got.rgb[channel] - want.rgb[channel]) <= 12) }
    // Reused: the hash of the file that is there, nothing made again.
    options.remakesCurrentThumbnails = false
    let reused = try Thumbnailer(options: options).makeThumbnail(forFileAt: source)
    #expect(reused.reused)
    let again = try #require(reused.thumbHash)
    for (a, b) in zip(Self.average(again.rendered()).rgb, got.rgb) { #expect(abs(a - b) <= 4) }
    // Several sizes: each its own.
    let sizes = try Thumbnailer(options: options).makeThumbnails(
      forFileAt: source, sizes: [.longestSide(40), .longestSide(150)])
    #expect(sizes.allSatisfy { $0.thumbHash != nil })
  }
}
