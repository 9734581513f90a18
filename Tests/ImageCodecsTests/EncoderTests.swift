import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// JPEG and PNG encoding round-trips, and atomic file writes.
@Suite(.timeLimit(.minutes(30))) struct EncoderTests {
  @Test(arguments: ["basn0g08.png", "basn4a08.png", "basn2c08.png", "basn6a08.png"])
  func pngRoundTripIsLossless(_ name: String) throws {
    let image = try ImageDecoder.decode(contentsOf: Fixtures.image(name))
    let encoded = try ImageEncoder.encode(image, as: .png(compressionLevel: 9))
    #expect(try ImageDecoder.decode(encoded) == image)
  }

  @Test func sixteenBitPNGRoundTrip() throws {
    let image = try ImageDecoder.decode(
      contentsOf: Fixtures.image("basn6a16.png"), options: DecodeOptions(pixelFormat: .native))
    let encoded = try ImageEncoder.encode(image, as: .png())
    #expect(try ImageDecoder.decode(encoded, options: DecodeOptions(pixelFormat: .native)) == image)
  }

  @Test(arguments: [false, true])
  func jpegRoundTripIsClose(_ progressive: Bool) throws {
    let image = try ImageDecoder.decode(contentsOf: Fixtures.image("Landscape_1.jpg"))
    let encoded = try ImageEncoder.encode(image, as: .jpeg(quality: 90, progressive: progressive))
    #expect(try ImageDecoder.probe(encoded).isProgressive == progressive)
    let decoded = try ImageDecoder.decode(encoded)
    #expect(psnr(image, decoded) > 35)
  }

  @Test func jpegOfGrayAndRGBA() throws {
    let gray = try ImageDecoder.decode(contentsOf: Fixtures.image("jpg-gray.jpg"))
    #expect(try ImageDecoder.probe(ImageEncoder.encode(gray, as: .jpeg())).colorType == .gray)
    let rgba = try ImageDecoder.decode(contentsOf: Fixtures.image("basn6a08.png"))
    #expect(try ImageDecoder.decode(ImageEncoder.encode(rgba, as: .jpeg())).pixelFormat == .rgb8)
    let wide = try Image(width: 4, height: 4, pixelFormat: .rgb16)
    let error = #expect(throws: EncodeError.self) { try ImageEncoder.encode(wide, as: .jpeg()) }
    #expect(error?.description.contains("JPEG") == true)
  }

  @Test func writeIsAtomicAndLeavesNothingOnFailure() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let image = try ImageDecoder.decode(contentsOf: Fixtures.image("basn2c08.png"))
    let target = directory.appendingPathComponent("out.png").path
    try ImageEncoder.write(image, as: .png(), to: target)
    #expect(try ImageDecoder.decode(contentsOf: target) == image)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
    let missing = directory.appendingPathComponent("no/such/dir/out.png").path
    let error = #expect(throws: EncodeError.self) { try ImageEncoder.write(image, as: .png(), to: missing) }
    #expect(error?.path == missing)
    #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.png"])
  }

  func psnr(_ a: Image, _ b: Image) -> Double {
    let x = a.bytes
    let y = b.bytes
    let squared = zip(x, y).reduce(0.0) { sum, pair in
      let d = Double(pair.0) - Double(pair.1)
      return sum + d * d
    }
    return 10 * log10(255 * 255 / (squared / Double(x.count)))
  }
}
