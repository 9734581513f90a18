import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// WebP through libwebp: lossy and lossless, alpha kept, gray stored as RGB, the comment and the
/// profile in chunks of their own that ImageMetadata reads back.
@Suite(.timeLimit(.minutes(30))) struct WebPEncoderTests {
  static let photo: Image = { try! ImageDecoder.decode(contentsOf: Fixtures.image("Landscape_1.jpg"), options: DecodeOptions(jpegScale: .eighth)) }()

  static func psnr(_ a: Image, _ b: Image) -> Double {
    let x = a.bytes, y = b.bytes
    let error = zip(x, y).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(x.count)
    return 10 * log10(255 * 255 / max(error, 1e-9))
  }

  /// rgba8 of an rgb8 image (alpha 255), to compare with what libwebp decodes.
  static func rgba(_ image: Image, alpha: (Int) -> UInt8 = { _ in 255 }) -> Image {
    let rgb = image.bytes
    var out: [UInt8] = []
    for i in 0..<(image.width * image.height) { out += [rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], alpha(i)] }
    return Image(width: image.width, height: image.height, pixelFormat: .rgba8, bytes: out)!
  }

  @Test func lossyIsCloseAndSmallerThanPNG() throws {
    let bytes = try ImageEncoder.encode(Self.photo, as: .webp(quality: 80))
    let decoded = try #require(WebPDecoding.decode(bytes))
    #expect(decoded.width == Self.photo.width && decoded.height == Self.photo.height)
    #expect(Self.psnr(decoded, Self.rgba(Self.photo)) > 30)
    #expect(bytes.count < (try ImageEncoder.encode(Self.photo, as: .png())).count / 3)
    #expect(WebPEncoder(quality: 80).settingsLabel == "webp/80" && WebPEncoder(lossless: true).settingsLabel == "webp/lossless")
  }

  @Test func losslessKeepsEveryPixelAndTheAlpha() throws {
    let withAlpha = Self.rgba(Self.photo) { UInt8(truncatingIfNeeded: $0 * 7) }
    for image in [withAlpha, Self.rgba(Self.photo)] {
      let decoded = try #require(WebPDecoding.decode(try ImageEncoder.encode(image, as: .webp(lossless: true))))
      #expect(decoded.bytes == image.bytes)
    }
    let gray = try Image(width: 3, height: 1, pixelFormat: .gray8)
    let spread = try #require(WebPDecoding.decode(try ImageEncoder.encode(gray, as: .webp(lossless: true))))
    #expect(spread.bytes == [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255])
  }

  @Test func theCommentIsReadBackAndACutFileIsIncomplete() throws {
    let comment = "imgfetch-thumbnail/1 source=a.jpg out=1x1"
    let bytes = try ImageEncoder.encode(Self.photo, as: .webp(), comment: comment)
    let metadata = try ImageMetadata.read(bytes)
    #expect(metadata.format == .webp && metadata.comments == [comment] && metadata.isComplete)
    let cut = try ImageMetadata.read(Array(bytes.dropLast(10)))
    #expect(!cut.isComplete)
    // From a file: the chunk headers are walked, the comment found after the image data.
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("webp-\(UUID().uuidString).webp").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try ImageEncoder.write(Self.photo, as: .webp(), to: path)
    #expect(try ImageMetadata.read(contentsOf: path).comments.isEmpty)
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    let read = try ImageMetadata.read(contentsOf: path, headBytes: 64)
    #expect(read.comments == [comment] && read.isComplete && read.colorSpace == .sRGB)
  }

  @Test func sixteenBitPixelsAreRefused() throws {
    let wide = try Image(width: 2, height: 2, pixelFormat: .rgb16)
    #expect(throws: EncodeError.self) { try ImageEncoder.encode(wide, as: .webp()) }
  }

  /// What the encoder writes, the decoder reads (issue 31): 8-bit RGB, the size, pixels close to the
  /// photo, the same as libwebp's one-call decode.
  @Test func theDecoderReadsWhatTheEncoderWrote() throws {
    let bytes = try ImageEncoder.encode(Self.photo, as: .webp(quality: 80))
    let decoded = try ImageDecoder.decode(bytes)
    #expect(decoded.pixelFormat == .rgb8 && decoded.width == Self.photo.width && decoded.height == Self.photo.height)
    #expect(Self.psnr(decoded, Self.photo) > 30)
    let rgba = try ImageDecoder.decode(bytes, options: DecodeOptions(pixelFormat: .rgba8))
    #expect(rgba.bytes == (try #require(WebPDecoding.decode(bytes))).bytes)
  }
}
