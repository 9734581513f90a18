import FixtureSupport
import ImageCodecs
import Testing

/// Pixel formats, limits, DCT scaling and buffer reuse.
@Suite(.timeLimit(.minutes(30))) struct DecodeOptionsTests {
  @Test func sourceFormatFollowsTheFile() throws {
    let cases: [(String, PixelFormat)] = [
      ("basn0g01.png", .gray8), ("basn4a08.png", .grayAlpha8), ("basn2c08.png", .rgb8), ("basn6a08.png", .rgba8),
      ("basn3p08.png", .rgb8), ("tbbn3p08.png", .rgba8), ("basn0g16.png", .gray8), ("jpg-gray.jpg", .gray8),
      ("testorig.jpg", .rgb8), ("jpg-cmyk-1.jpg", .rgb8),
    ]
    for (name, format) in cases {
      #expect(try ImageDecoder.decode(contentsOf: Fixtures.image(name)).pixelFormat == format, "\(name)")
    }
  }

  @Test func nativeKeeps16BitSamplesWhoseHighBytesAreTheDefault() throws {
    let path = Fixtures.image("basn2c16.png")
    let wide = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(pixelFormat: .native))
    let narrow = try ImageDecoder.decode(contentsOf: path)
    #expect(wide.pixelFormat == .rgb16 && narrow.pixelFormat == .rgb8)
    let high = wide.withUnsafeBytes { raw in raw.bindMemory(to: UInt16.self).map { UInt8($0 >> 8) } }
    #expect(high == narrow.bytes)
  }

  @Test func explicitConversions() throws {
    let jpeg = Fixtures.image("testorig.jpg")
    let rgb = try ImageDecoder.decode(contentsOf: jpeg)
    let rgba = try ImageDecoder.decode(contentsOf: jpeg, options: DecodeOptions(pixelFormat: .rgba8))
    #expect(rgba.pixelFormat == .rgba8)
    let stripped = rgba.bytes.enumerated().filter { $0.offset % 4 != 3 }.map(\.element)
    #expect(stripped == rgb.bytes)
    #expect(rgba.bytes.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 255 })
    let gray = try ImageDecoder.decode(contentsOf: jpeg, options: DecodeOptions(pixelFormat: .gray8))
    #expect(gray.pixelFormat == .gray8 && gray.byteCount == rgb.width * rgb.height)
    let cmykGray = try ImageDecoder.decode(
      contentsOf: Fixtures.image("jpg-cmyk-1.jpg"), options: DecodeOptions(pixelFormat: .gray8))
    #expect(cmykGray.pixelFormat == .gray8)
    let pngRGB = try ImageDecoder.decode(
      contentsOf: Fixtures.image("basn6a08.png"), options: DecodeOptions(pixelFormat: .rgb8))
    #expect(pngRGB.pixelFormat == .rgb8 && pngRGB.byteCount == 32 * 32 * 3)
  }

  @Test func pixelLimitIsCheckedFromTheHeader() {
    let limits = DecodeLimits(maxPixels: 1_000_000)
    let error = #expect(throws: DecodeError.self) {
      try ImageDecoder.decode(contentsOf: Fixtures.image("Landscape_1.jpg"), options: DecodeOptions(limits: limits))
    }
    #expect(error?.kind == .limitExceeded)
    #expect(error?.message.contains("1800x1200") == true)
    let dimension = DecodeLimits(maxWidth: 31)
    #expect(throws: DecodeError.self) {
      try ImageDecoder.decode(contentsOf: Fixtures.image("basn2c08.png"), options: DecodeOptions(limits: dimension))
    }
  }

  @Test(arguments: [1, 2, 4, 8])
  func dctScalingShrinksOnLoad(_ eighths: Int) throws {
    let path = Fixtures.image("Landscape_1.jpg")
    let scale = JPEGScale(eighths: eighths)
    let image = try ImageDecoder.decode(contentsOf: path, options: DecodeOptions(jpegScale: scale))
    #expect(image.width == scale.scaled(1800) && image.height == scale.scaled(1200))
    // The scaled image is a faithful miniature: its mean colour matches the full decode's.
    let full = try ImageDecoder.decode(contentsOf: path)
    #expect(abs(meanValue(image) - meanValue(full)) < 1.5)
  }

  @Test func dctScalingStillValidatesTheWholeFile() {
    #expect(throws: DecodeError.self) {
      try ImageDecoder.decode(
        contentsOf: Fixtures.image("truncated_jpeg.jpg"), options: DecodeOptions(jpegScale: .eighth))
    }
  }

  @Test func decodeIntoReusesTheAllocation() throws {
    var image = try ImageDecoder.decode(contentsOf: Fixtures.image("Landscape_1.jpg"))
    let before = image.withUnsafeBytes { $0.baseAddress }
    try ImageDecoder.decode(contentsOf: Fixtures.image("Portrait_2.jpg"), into: &image)
    #expect(image.withUnsafeBytes { $0.baseAddress } == before)
    #expect(image == (try ImageDecoder.decode(contentsOf: Fixtures.image("Portrait_2.jpg"))))
  }

  @Test func decodeIntoNeverTouchesACopy() throws {
    var image = try ImageDecoder.decode(contentsOf: Fixtures.image("basn2c08.png"))
    let copy = image
    try ImageDecoder.decode(contentsOf: Fixtures.image("basn6a08.png"), into: &image)
    #expect(copy == (try ImageDecoder.decode(contentsOf: Fixtures.image("basn2c08.png"))))
    #expect(image.pixelFormat == .rgba8)
  }

  @Test func imagesAreValues() throws {
    var a = try Image(width: 2, height: 2, pixelFormat: .rgb8)
    let b = a
    try a.withUnsafeMutableBytes { $0[0] = 200 }
    #expect(b.bytes[0] == 0 && a.bytes[0] == 200)
    #expect(Image(width: 2, height: 1, pixelFormat: .gray8, bytes: [1, 2, 3]) == nil)
  }

  func meanValue(_ image: Image) -> Double {
    image.withUnsafeBytes { raw in Double(raw.reduce(0) { $0 + Int($1) }) / Double(raw.count) }
  }
}
