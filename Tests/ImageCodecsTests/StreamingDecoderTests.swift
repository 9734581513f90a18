import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// `StreamingDecoder`: bytes pushed in any chunking give the one-call decode's pixels and verdict.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(30))) struct StreamingDecoderTests {
  /// Feeds `bytes` in seeded random chunk sizes (1...maxChunk), reading rows into a full-size image
  /// as they become available; returns the image or the first error.
  static func stream(
    _ bytes: [UInt8], options: DecodeOptions = DecodeOptions(), seed: UInt64 = 7, maxChunk: Int = 4096,
    scaleForHeader: ((ImageHeader) -> JPEGScale)? = nil
  ) -> Result<Image, DecodeError> {
    var generator = SplitMix(seed: seed)
    var cuts: [Int] = []
    var offset = 0
    while offset < bytes.count {
      offset += 1 + Int(generator.next() % UInt64(maxChunk))
      if offset < bytes.count { cuts.append(offset) }
    }
    return stream(bytes, cuts: cuts, options: options, scaleForHeader: scaleForHeader)
  }

  /// Decodes `bytes` with a `StreamingDecoder`, appending them in the pieces `cuts` marks (offsets),
  /// reading rows into a full-size image as they become available; returns the image or the first
  /// error. `file`: the file the bytes are, which the decoder may read again (as the thumbnailer
  /// says of its files).
  static func stream(
    _ bytes: [UInt8], cuts: [Int], options: DecodeOptions = DecodeOptions(),
    scaleForHeader: ((ImageHeader) -> JPEGScale)? = nil, file: String? = nil
  ) -> Result<Image, DecodeError> {
    let decoder = StreamingDecoder(options: options, scaleForHeader: scaleForHeader)
    if let file {
      let descriptor = open(file, O_RDONLY | O_CLOEXEC)
      if descriptor >= 0 {
        decoder.readsFile(descriptor: descriptor)  // the decoder keeps its own duplicate
        close(descriptor)
      }
    }
    var image: Image?
    var row = 0
    func take() throws(DecodeError) {
      guard let size = decoder.outputSize, let format = decoder.outputPixelFormat else { return }
      if image == nil { image = try Image(width: size.width, height: size.height, pixelFormat: format) }
      row += try decoder.readRows(into: &image!, at: row)
    }
    do throws(DecodeError) {
      var start = 0
      for end in cuts + [bytes.count] where end > start && end <= bytes.count {
        try decoder.append(Array(bytes[start..<end]))
        start = end
        try take()
      }
      try decoder.finish()
      try take()
      guard let image, row == image.height else {
        return .failure(DecodeError(kind: .invalidArgument, format: nil, message: "rows missing: \(row)"))
      }
      return .success(image)
    } catch { return .failure(error) }
  }

  static func oneCall(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions()) -> Result<Image, DecodeError> {
    do throws(DecodeError) { return .success(try ImageDecoder.decode(bytes, options: options)) } catch {
      return .failure(error)
    }
  }

  static let samples = [
    "basn6a08.png", "basi3p08.png", "basn0g01.png", "basn6a16.png", "basi4a16.png", "testorig.jpg",
    "jpg-progressive.jpg", "jpg-cmyk-1.jpg", "jpg-gray.jpg", "restarts.jpg", "testimgari.jpg", "Portrait_6.jpg",
  ]

  @Test(arguments: samples)
  func randomChunksGiveTheOneCallPixels(_ name: String) throws {
    let bytes = try Fixtures.bytes(name)
    for seed: UInt64 in [1, 2] {
      for maxChunk in [7, 5000] {
        let streamed = try Self.stream(bytes, seed: seed, maxChunk: maxChunk).get()
        #expect(streamed == (try Self.oneCall(bytes).get()), "\(name) seed \(seed) chunks \(maxChunk)")
      }
    }
  }

  @Test func aStripOfRowsCanBeReused() throws {
    let bytes = try Fixtures.bytes("testorig.jpg")
    let full = try ImageDecoder.decode(bytes)
    let decoder = StreamingDecoder()
    try decoder.append(bytes)
    try decoder.finish()
    var strip = try Image(width: full.width, height: 16, pixelFormat: full.pixelFormat)
    var collected: [UInt8] = []
    while true {
      let count = try decoder.readRows(into: &strip)
      if count == 0 { break }
      collected += strip.bytes.prefix(count * strip.bytesPerRow)
    }
    #expect(collected == full.bytes)
    #expect(decoder.rowsRead == full.height)
  }

  @Test func theHeaderIsKnownBeforeTheLastByte() throws {
    let bytes = try Fixtures.bytes("Landscape_5.jpg")
    let decoder = StreamingDecoder()
    try decoder.append(bytes.prefix(bytes.count / 2))
    #expect(decoder.header?.width == 1200 && decoder.header?.height == 1800)
    #expect(decoder.header?.orientation == .leftMirrored)
    #expect(decoder.outputSize == StreamingDecoder.OutputSize(width: 1200, height: 1800))
    #expect(decoder.outputPixelFormat == .rgb8)
  }

  /// A PNG's orientation comes from its eXIf chunk, which libpng 1.6.39's push reader does not know:
  /// streamed, it is still read, as in one call.
  @Test func aPNGsExifOrientationIsTheOneCallOne() throws {
    var png = PNGBuilder()
    png.header(width: 3, height: 2)
    // A big-endian TIFF header, one IFD entry: Orientation (0x0112), SHORT, 1 value, 6.
    png.chunk("eXIf", [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0])
    png.pixels([[1, 2, 3], [4, 5, 6]])
    let whole = try ImageDecoder.decode(png.bytes)
    #expect(whole.orientation == .right)
    let decoder = StreamingDecoder()
    try decoder.append(png.bytes[...])
    try decoder.finish()
    #expect(decoder.header?.orientation == .right)
  }

  @Test(arguments: ["testorig.jpg", "gray-noise-160.png", "Landscape_5.jpg"])
  func rowsArriveBeforeTheLastByte(_ name: String) throws {
    // Sequential JPEG and non-interlaced PNG: the first half of the file gives rows at once. (PNG
    // image data goes to zlib in 8 KiB pieces or whole chunks, so the PNG is noise of ~25 KiB.)
    var noise: UInt32 = 1
    let rows: [[UInt8]] = (0..<160).map { (_: Int) -> [UInt8] in
      (0..<160).map { (_: Int) -> UInt8 in
        noise = noise &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: noise >> 24)
      }
    }
    let bytes = name == "gray-noise-160.png" ? PNGBuilder.gray(rows) : try Fixtures.bytes(name)
    let full = try ImageDecoder.decode(bytes)
    let decoder = StreamingDecoder()
    try decoder.append(bytes.prefix(bytes.count / 2))
    var image = try Image(width: full.width, height: full.height, pixelFormat: full.pixelFormat)
    let early = try decoder.readRows(into: &image)
    #expect(early > 0 && early < full.height, "\(name): \(early) rows from half the bytes")
    try decoder.append(bytes.suffix(from: bytes.count / 2))
    var row = early
    row += try decoder.readRows(into: &image, at: row)
    try decoder.finish()
    row += try decoder.readRows(into: &image, at: row)
    #expect(row == full.height)
    #expect(image == full)
  }

  @Test func decodedRowsWaitingToBeReadStayBounded() throws {
    // A 4000x3000 RGB PNG (36 MB of pixels, highly compressible) appended in one call: decoding
    // stops when about 1 MiB of rows is queued (the rest waits as compressed bytes) and resumes as
    // a 16-row strip drains the queue.
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let path = scratch.appendingPathComponent("rgb.png").path
    let script = """
      import struct, sys, zlib
      def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
      z = zlib.compressobj(6)
      rows = [z.compress(bytes([0]) + bytes([(y * 7 + x) & 255 for x in range(240)]) * 50) for y in range(3000)]
      ihdr = struct.pack(">IIBBBBB", 4000, 3000, 8, 2, 0, 0, 0)
      sig = bytes([0x89]) + b"PNG" + bytes([13, 10, 26, 10])
      data = b"".join(rows) + z.flush()
      open(sys.argv[1], "wb").write(sig + chunk(b"IHDR", ihdr) + chunk(b"IDAT", data) + chunk(b"IEND", b""))
      """
    #expect(try runProcess("/usr/bin/python3", ["-c", script, path]).status == 0)
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let rowBytes = 4000 * 3
    let decoder = StreamingDecoder()
    try decoder.append(bytes)
    #expect(decoder.availableRows > 0)
    #expect(decoder.availableRows * rowBytes <= 4 << 20, "\(decoder.availableRows) rows queued")
    var strip = try Image(width: 4000, height: 16, pixelFormat: .rgb8)
    var total = 0
    var largestQueue = 0
    while true {
      let count = try decoder.readRows(into: &strip)
      if count == 0 { break }
      // Row y of the file is (y * 7 + x) & 255 per byte x (mod 240 pattern), so spot-check one byte.
      let y = total
      #expect(strip.bytes[5] == UInt8((y * 7 + 5) & 255))
      total += count
      largestQueue = Swift.max(largestQueue, decoder.availableRows)
    }
    try decoder.finish()
    total += try decoder.readRows(into: &strip)
    #expect(total == 3000)
    #expect(largestQueue * rowBytes <= 4 << 20, "\(largestQueue) rows queued at most")
  }

  @Test func interlacedPNGRowsComeWithTheLastPass() throws {
    let bytes = try Fixtures.bytes("basi6a08.png")
    let decoder = StreamingDecoder()
    try decoder.append(bytes.prefix(bytes.count - 20))
    #expect(decoder.outputSize != nil)
    #expect(decoder.availableRows == 0)
    try decoder.append(bytes.suffix(20))
    try decoder.finish()
    #expect(decoder.availableRows == 32)
  }

  @Test func aPNGHeaderOverTheLimitsThrowsOnTheAppendThatCompletesIt() throws {
    let bytes = try Fixtures.bytes("../hostile/huge-65535x65535.png")
    let decoder = StreamingDecoder()
    // Signature (8), IHDR length and type (8), width and height (8): the 24th byte completes the size.
    for index in 0..<23 { try decoder.append([bytes[index]]) }
    let error = #expect(throws: DecodeError.self) { try decoder.append([bytes[23]]) }
    #expect(error?.kind == .limitExceeded)
    #expect(throws: DecodeError.self) { try decoder.finish() }
  }

  @Test func aJPEGHeaderOverTheLimitsThrowsBeforeTheData() throws {
    let bytes = try Fixtures.bytes("max_size.jpg")
    let decoder = StreamingDecoder()
    var thrown: DecodeError?
    var fed = 0
    for byte in bytes {
      fed += 1
      do throws(DecodeError) { try decoder.append([byte]) } catch {
        thrown = error
        break
      }
    }
    #expect(thrown?.kind == .limitExceeded)
    #expect(fed < bytes.count)
  }

  @Test func scaleForHeaderChoosesTheScaleAndTheLimitsApplyToTheScaledOutput() throws {
    let bytes = try Fixtures.bytes("testorig.jpg")  // 227x149
    var asked: ImageHeader?
    let eighth = try Self.stream(bytes) { header in
      asked = header
      return .eighth
    }.get()
    #expect(asked?.width == 227)
    #expect(eighth == (try ImageDecoder.decode(bytes, options: DecodeOptions(jpegScale: .eighth))))
    // 16/8 doubles the size: 454x298 = 135,292 pixels, over a 100,000-pixel limit (issue 11.11).
    let limits = DecodeLimits(maxPixels: 100_000)
    let streamed = Self.stream(bytes, options: DecodeOptions(limits: limits)) { _ in JPEGScale(eighths: 16) }
    #expect(streamed.error?.kind == .limitExceeded)
  }

  @Test func truncationsAndDamageGiveTheOneCallVerdict() throws {
    for name in ["basn6a08.png", "basi0g08.png", "testorig.jpg", "jpg-progressive.jpg"] {
      let bytes = try Fixtures.bytes(name)
      let step = Swift.max(1, bytes.count / 150)
      for length in stride(from: 0, to: bytes.count, by: step) {
        let prefix = Array(bytes[..<length])
        let expected = Self.oneCall(prefix)
        let streamed = Self.stream(prefix, seed: UInt64(length), maxChunk: 64)
        #expect(streamed.error?.kind == expected.error?.kind, "\(name) cut at \(length)")
      }
    }
    for name in ["badadler.png", "badcrc.png", "xd0n2c08.png", "progressive-missing-dc.jpg", "truncated_jpeg.jpg"] {
      let bytes = try Fixtures.bytes(name)
      #expect(Self.stream(bytes, maxChunk: 13).error?.kind == Self.oneCall(bytes).error?.kind, "\(name)")
    }
  }

  @Test func anEmptyStreamIsNotAnImage() {
    let decoder = StreamingDecoder()
    let error = #expect(throws: DecodeError.self) { try decoder.finish() }
    #expect(error?.kind == .notAnImage)
  }

  @Test func validateReturnsTheHeaderOrTheDecodeError() throws {
    let header = try ImageDecoder.validate(contentsOf: Fixtures.image("basi3p08.png"))
    #expect(header == (try ImageDecoder.probe(contentsOf: Fixtures.image("basi3p08.png"))))
    let error = #expect(throws: DecodeError.self) {
      try ImageDecoder.validate(contentsOf: Fixtures.image("truncated_jpeg.jpg"))
    }
    #expect(error?.kind == .truncated)
    #expect(error?.path == Fixtures.image("truncated_jpeg.jpg"))
  }
}

/// Issue 11.11: a DCT scale above 8/8 enlarges the output; the limits apply to what is allocated.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(30))) struct ScaledLimitTests {
  @Test func aScaledJPEGOverThePixelLimitIsALimitError() throws {
    let bytes = try Fixtures.bytes("testorig.jpg")  // 227x149 = 33,823 pixels
    let options = DecodeOptions(limits: DecodeLimits(maxPixels: 100_000), jpegScale: JPEGScale(eighths: 16))
    let error = #expect(throws: DecodeError.self) { try ImageDecoder.decode(bytes, options: options) }
    #expect(error?.kind == .limitExceeded)
    #expect(error?.message == "image is 454x298 (135292 pixels), over the 100000-pixel limit")
    let wide = DecodeOptions(limits: DecodeLimits(maxWidth: 300), jpegScale: JPEGScale(eighths: 16))
    #expect(throws: DecodeError.self) { try ImageDecoder.decode(bytes, options: wide) }
    // At 8/8 the same limits hold.
    #expect(
      try ImageDecoder.decode(bytes, options: DecodeOptions(limits: DecodeLimits(maxPixels: 100_000))).width == 227)
  }
}

extension Result {
  var error: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
