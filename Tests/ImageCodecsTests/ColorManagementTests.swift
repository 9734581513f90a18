import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// The library knows colour: what a file's colour description is, pixels converted to sRGB on
/// request, profiles kept by the encoders, and hostile profiles ignored with a reason.
@Suite(.timeLimit(.minutes(30))) struct ColorManagementTests {
  static func fixture(_ name: String) -> String { ViewedImage.colorFixture(name) }
  static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture(name)))) }

  @Test func theHeaderSaysWhatTheColoursAre() throws {
    let p3 = try ImageDecoder.probe(contentsOf: Self.fixture("display-p3.jpg")).colorSpace
    #expect(p3.model == .rgb && p3.origin == .iccProfile && !p3.isSRGB)
    #expect(p3.profileDescription == "Display P3 (imgfetch test)")
    #expect(p3.iccProfile == (try Self.bytes("display-p3.icc")))
    let png = try ImageDecoder.probe(contentsOf: Self.fixture("prophoto.png")).colorSpace
    #expect(png.iccProfile == (try Self.bytes("prophoto.icc")))
    let cmyk = try ImageDecoder.probe(contentsOf: Self.fixture("cmyk.jpg")).colorSpace
    #expect(cmyk.model == .cmyk && cmyk.origin == .iccProfile)
    let gama = try ImageDecoder.probe(contentsOf: Self.fixture("adobe-rgb-gama-chrm.png")).colorSpace
    #expect(gama.origin == .gammaChunks && abs((gama.gamma ?? 0) - 256.0 / 563) < 0.0001 && !gama.isSRGB)
    #expect(gama.chromaticities?.count == 8)
    let gray = try ImageDecoder.probe(contentsOf: Self.fixture("gray-gamma18-gama.png")).colorSpace
    #expect(gray.model == .gray && gray.origin == .gammaChunks && !gray.isSRGB)
    let plain = try ImageDecoder.probe(contentsOf: Self.fixture("reference.png")).colorSpace
    #expect(plain == .sRGB)
    // The metadata reader says the same, without decoding.
    #expect(try ImageMetadata.read(contentsOf: Self.fixture("prophoto.png")).colorSpace == png)
  }

  @Test func anSRGBProfileIsSRGB() throws {
    // lcms2's own sRGB profile, written into a JPEG by the encoder, is recognised as sRGB.
    let p3 = try ImageDecoder.decode(contentsOf: Self.fixture("display-p3.jpg"))
    #expect(p3.colorSpace.origin == .iccProfile)
    let converted = try p3.convertedToSRGB()
    #expect(converted.colorSpace == .sRGB)
    let rewritten = try ImageDecoder.decode(try ImageEncoder.encode(converted, as: .png()))
    #expect(rewritten.colorSpace == .sRGB, "an sRGB image is written without a profile")
  }

  @Test(arguments: ["display-p3", "adobe-rgb", "prophoto"])
  func decodingToSRGBGivesThePhotosColours(space: String) throws {
    let reference = try ViewedImage.reference()
    for name in ["\(space).jpg", "\(space).png"] {
      let stored = try ImageDecoder.decode(contentsOf: Self.fixture(name))
      let converted = try ImageDecoder.decode(contentsOf: Self.fixture(name), options: DecodeOptions(colorSpace: .sRGB))
      #expect(converted.colorSpace == .sRGB)
      #expect(try stored.convertedToSRGB() == converted)
      // Full size against the photo: JPEG quality 95 and 8-bit rounding only.
      let difference = ColorDifference.meanDeltaE(reference, ViewedImage.picture(of: converted))
      #expect(difference < 1.0, "\(name): mean ΔE \(difference)")
    }
  }

  @Test func grayOfAColourSourceIsMadeAfterTheConversion() throws {
    let gray = try ImageDecoder.decode(
      contentsOf: Self.fixture("prophoto.png"), options: DecodeOptions(pixelFormat: .gray8, colorSpace: .sRGB))
    #expect(gray.pixelFormat == .gray8 && gray.colorSpace == .sRGB(.gray))
    let difference = ColorDifference.meanDeltaE(try ViewedImage.reference(), ViewedImage.picture(of: gray), lightnessOnly: true)
    #expect(difference < 3, "mean ΔL \(difference)")  // Rec. 601 luma is not L*, but close
  }

  @Test func theStreamingDecoderConvertsItsRows() throws {
    let bytes = try Self.bytes("prophoto.jpg")
    let decoder = StreamingDecoder(options: DecodeOptions(colorSpace: .sRGB))
    try decoder.append(bytes)
    try decoder.finish()
    let size = try #require(decoder.outputSize)
    var image = try Image(width: size.width, height: size.height, pixelFormat: try #require(decoder.outputPixelFormat))
    #expect(try decoder.readRows(into: &image) == size.height)
    #expect(image == (try ImageDecoder.decode(bytes, options: DecodeOptions(colorSpace: .sRGB))))
    #expect(image.colorSpace == .sRGB)
  }

  @Test(arguments: PixelFormatRequest.allCases)
  func aCMYKJPEGStreamsThroughItsProfileInEveryLayout(request: PixelFormatRequest) throws {
    let bytes = try Self.bytes("cmyk.jpg")
    let options = DecodeOptions(pixelFormat: request)
    let whole = try ImageDecoder.decode(bytes, options: options)
    let decoder = StreamingDecoder(options: options)
    for start in stride(from: 0, to: bytes.count, by: 4096) { try decoder.append(Array(bytes[start..<min(bytes.count, start + 4096)])) }
    try decoder.finish()
    let size = try #require(decoder.outputSize)
    var image = try Image(width: size.width, height: size.height, pixelFormat: try #require(decoder.outputPixelFormat))
    #expect(try decoder.readRows(into: &image) == size.height)
    #expect(image == whole, "\(request)")
    let plain = try ImageDecoder.decode(try Self.bytes("cmyk-no-profile.jpg"), options: options)
    #expect(whole != plain, "through the profile, not the plain formula")
  }

  @Test(arguments: ["display-p3.jpg", "prophoto.png", "gray-gamma18.jpg", "adobe-rgb-gama-chrm.png"])
  func theEncodersKeepTheColourSpace(name: String) throws {
    let image = try ImageDecoder.decode(contentsOf: Self.fixture(name))
    let profile = try #require(image.colorSpace.iccProfile ?? (name.contains("gama") ? [] : nil))
    for encoder in [JPEGEncoder() as any ImageEncoding, PNGEncoder(), WebPEncoder(lossless: true)] {
      let written = try ImageEncoder.encode(image, as: encoder)
      let metadata = try ImageMetadata.read(written)
      let space = try #require(metadata.colorSpace)
      if encoder.format == .webp && !image.pixelFormat.isColor {
        // WebP has no gray: written in sRGB, looking the same.
        #expect(space == .sRGB)
        let viewed = ViewedImage.picture(of: try #require(WebPDecoding.decode(written)))
        #expect(ColorDifference.meanDeltaE(ViewedImage.picture(of: try image.convertedToSRGB()), viewed) < 0.5)
        continue
      }
      #expect(space.origin == .iccProfile && !space.isSRGB, "\(name) as \(encoder.format)")
      if !profile.isEmpty { #expect(metadata.iccProfile == profile, "\(name) as \(encoder.format)") }
    }
  }
}
