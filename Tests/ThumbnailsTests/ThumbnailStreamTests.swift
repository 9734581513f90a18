import FixtureSupport
import Foundation
import ImageCodecs
import Testing

@testable import Thumbnails

/// The streamed thumbnail (rows from a `StreamingDecoder` through the box shrink as they arrive)
/// against the one-call path it replaces: a whole decode at the plan's scale, then the renderer.
@Suite(.timeLimit(.minutes(30))) struct ThumbnailStreamTests {
  /// JPEG at every DCT scale the plan picks, PNG of every kind (gray, palette, 16-bit, alpha,
  /// interlaced), EXIF orientations.
  static let fixtures = [
    "Landscape_1.jpg", "Portrait_6.jpg", "right-orientation.jpeg", "progressive.jpeg", "basn6a08.png",
    "basn2c08.png", "basi6a08.png", "basn0g16.png", "basn3p08.png", "basi4a16.png", "exif2c08.png",
  ]

  static let optionSets: [ThumbnailOptions] = {
    var cover = ThumbnailOptions(size: .box(width: 50, height: 30))
    cover.fit = .cover
    var bilinear = ThumbnailOptions(size: .longestSide(16))
    bilinear.filter = .bilinear
    var jpeg = ThumbnailOptions(size: .longestSide(100))
    jpeg.format = .jpeg(quality: 85)
    var upscale = ThumbnailOptions(size: .longestSide(70))
    upscale.allowsUpscaling = true
    return [ThumbnailOptions(size: .longestSide(64)), cover, bilinear, jpeg, upscale]
  }()

  /// The old path: one decode of the whole image at the plan's scale, then the renderer, then the
  /// options' colour step (PngSuite's gAMA 1.0 is converted to sRGB).
  static func reference(_ bytes: [UInt8], _ options: ThumbnailOptions, flatten: Bool) throws -> Image {
    let header = try ImageDecoder.probe(bytes)
    let plan = ThumbnailPlan(
      sourceWidth: header.width, sourceHeight: header.height, orientation: header.orientation, format: header.format,
      options: options)
    let decoded = try ImageDecoder.decode(
      bytes, options: DecodeOptions(pixelFormat: .source, strictness: .strict, jpegScale: plan.jpegScale))
    var rendered = try ThumbnailRenderer.render(decoded, plan: plan, filter: options.filter, flatten: flatten)
    try options.colorSpace.apply(to: &rendered, pixels: decoded.colorSpace)
    return rendered
  }

  /// Drives a stream as a download would: seeded random chunks, rows taken after every append.
  static func streamed(_ bytes: [UInt8], _ options: ThumbnailOptions, seed: UInt64) throws -> (Image, (any ImageEncoding)?) {
    let stream = try ThumbnailStream(options: options)
    let decoder = StreamingDecoder(options: stream.decodeOptions, scaleForHeader: stream.scale(for:))
    var generator = SeededGenerator(seed: seed)
    var offset = 0
    while offset < bytes.count {
      let end = min(bytes.count, offset + Int.random(in: 1...9000, using: &generator))
      try decoder.append(Array(bytes[offset..<end]))
      try stream.consumeRows(from: decoder)
      offset = end
    }
    try decoder.finish()
    return (try stream.finish(from: decoder), stream.format)
  }

  @Test(arguments: fixtures)
  func rowsGiveExactlyThePixelsOfTheWholeDecode(fixture: String) throws {
    let bytes = try Fixtures.bytes(fixture)
    for (index, options) in Self.optionSets.enumerated() {
      let (image, format) = try Self.streamed(bytes, options, seed: UInt64(index + 1))
      let header = try ImageDecoder.probe(bytes)
      let resolved = options.format.resolved(hasAlpha: header.hasAlpha)
      #expect(format?.settingsLabel == resolved.settingsLabel)
      let expected = try Self.reference(bytes, options, flatten: !resolved.storesAlpha)
      #expect(image == expected, "\(fixture) with \(options.size) \(options.fit) \(options.filter)")
    }
  }

  /// Box factors on both axes, partial last blocks, alpha: a synthetic 1001x777 RGBA PNG.
  @Test func largeBoxShrinksWithPartialBlocksMatchToo() throws {
    var image = TestImages.pattern(width: 1001, height: 777, format: .rgba8)
    try image.withUnsafeMutableBytes { bytes in
      for i in stride(from: 3, to: bytes.count, by: 4) { bytes[i] = UInt8(truncatingIfNeeded: i / 97) }
    }
    let bytes = try ImageEncoder.encode(image, as: .png())
    for options in [ThumbnailOptions(size: .longestSide(40)), ThumbnailOptions(size: .box(width: 9, height: 200))] {
      let plan = ThumbnailPlan(sourceWidth: 1001, sourceHeight: 777, orientation: .up, format: .png, options: options)
      #expect(plan.horizontal.boxFactor > 1)
      let (streamed, _) = try Self.streamed(bytes, options, seed: 7)
      #expect(streamed == (try Self.reference(bytes, options, flatten: false)))
    }
  }

  @Test func theDecodersVerdictIsTheStreamsError() throws {
    let truncated = try Fixtures.bytes("truncated_jpeg.jpg")
    #expect {
      _ = try Self.streamed(truncated, ThumbnailOptions(size: .longestSide(32)), seed: 3)
    } throws: { ($0 as? DecodeError)?.kind == .truncated }
    // Through the thumbnailer the error names the file, as the one-call decode's does.
    #expect {
      try Thumbnailer(options: ThumbnailOptions(size: .longestSide(32))).image(contentsOf: Fixtures.image("badcrc.png"))
    } throws: { error in
      guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
      return decodeError.kind == .corrupt && decodeError.path == Fixtures.image("badcrc.png")
    }
  }

  /// A stream given its source's path names it in its errors, as the one-call decode does.
  @Test func itsErrorsNameTheSourceItWasGiven() throws {
    // 2,000 x 1,000 gray; row 900 has filter type 7, which does not exist. One append holds the
    // whole file, but the decoder's row queue (about 1 MiB) fills long before row 900, so the
    // damage is met while the stream takes rows.
    var data = [UInt8]()
    for y in 0..<1_000 { data += [y == 900 ? 7 : 0] + [UInt8](repeating: UInt8(y & 0xFF), count: 2_000) }
    var png = PNGBuilder()
    png.header(width: 2_000, height: 1_000)
    png.chunk("IDAT", Zlib.stored(data))
    png.chunk("IEND", [])
    let stream = try ThumbnailStream(options: ThumbnailOptions(size: .longestSide(64)), path: "photos/damaged.png")
    let decoder = StreamingDecoder(options: stream.decodeOptions, scaleForHeader: stream.scale(for:))
    try decoder.append(png.bytes)
    #expect {
      try stream.consumeRows(from: decoder)
      try decoder.finish()
      _ = try stream.finish(from: decoder)
    } throws: { error in
      guard case .decode(let decodeError) = error as? ThumbnailError else { return false }
      return decodeError.kind == .corrupt && decodeError.path == "photos/damaged.png"
        && "\(error)".hasPrefix("photos/damaged.png: corrupt PNG")
    }
  }

  @Test func anUpscaleOverThePixelLimitIsRefusedBeforeAnyRow() throws {
    var options = ThumbnailOptions(size: .longestSide(20_000))
    options.allowsUpscaling = true
    let stream = try ThumbnailStream(options: options)
    let decoder = StreamingDecoder(options: stream.decodeOptions, scaleForHeader: stream.scale(for:))
    try decoder.append(try Fixtures.bytes("basn2c08.png"))
    #expect {
      try stream.consumeRows(from: decoder)
    } throws: { error in
      guard case .invalidOptions(let message) = error as? ThumbnailError else { return false }
      return message.contains("over the 100000000-pixel limit")
    }
  }

  /// A thumbnail rendered by a stream and written with `writeThumbnail(_:forFileAt:)` is the one
  /// `makeThumbnail(forFileAt:)` reuses.
  @Test func aStreamedThumbnailWrittenForAFileIsReused() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = directory + "/photo.jpg"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: source)
      let options = ThumbnailOptions(size: .longestSide(64))
      let (image, _) = try Self.streamed(try Fixtures.bytes("Landscape_1.jpg"), options, seed: 11)
      let thumbnailer = Thumbnailer(options: options)
      let written = try thumbnailer.writeThumbnail(image, forFileAt: source)
      #expect(written.path == source + ".thumb-64.jpg" && written.format == .jpeg && !written.reused)
      let again = try thumbnailer.makeThumbnail(forFileAt: source)
      #expect(again.reused && again.path == written.path && (again.width, again.height) == (64, 43))
    }
  }
}

/// A small deterministic generator (SplitMix64) for reproducible chunk sizes.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E4B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
