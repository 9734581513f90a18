import FixtureSupport
import Foundation
@_spi(Fuzzing) import ImageCodecs
import Testing

/// imgfetch's JPEG engine on progressive JPEGs (`Sources/CodecEngines/JPEG`, used by strict decodes
/// at 1/8 and 1/4 scale) must be invisible: for every input, every source (memory, a
/// file, a validation, a stream in random pieces, a stream told its file, a stream whose last bytes
/// come as the last), every DCT scale and output format, the same verdict, the same error message
/// and the same pixels as libjpeg decoding the same bytes alone (`libjpegOnly`).
///
/// The inputs: every progressive JPEG fixture (`Fixtures/progressive` holds generated ones with
/// restart markers, each chroma layout, gray and CMYK), truncation sweeps, and damaged copies
/// (bytes changed, restart markers renumbered, markers inserted). Serialized and yielding between
/// decodes, like VerdictProofTests.
@Suite(.serialized, .timeLimit(.minutes(30))) struct ProgressiveDecoderTests {
  typealias Outcome = EighthScaleDecoderTests.Outcome

  static func options(_ format: PixelFormatRequest, scale: JPEGScale, libjpegOnly: Bool) -> DecodeOptions {
    var options = DecodeOptions(pixelFormat: format, jpegScale: scale)
    options.libjpegOnly = libjpegOnly
    return options
  }

  /// The disagreements between the two decoders on `bytes`, described: at each scale, each source
  /// decoded by both (DecoderPathComparison: memory, a stream in random pieces, a file, a
  /// validation; at the first scale a stream told its file), and a stream given its rest as the last.
  static func disagreements(
    _ bytes: [UInt8], name: String, seed: UInt64, scales: [JPEGScale] = [.eighth, .quarter, .half, .full]
  ) throws -> [String] {
    var problems: [String] = []
    for (index, scale) in scales.enumerated() {
      let format = [PixelFormatRequest.source, .rgba8, .gray8, .rgb8][(index + Int(seed % 4)) % 4]
      let label = "\(name) at \(scale.eighths)/8"
      problems += try DecoderPathComparison.disagreements(
        bytes, name: label, seed: seed &+ UInt64(index), library: "libjpeg", formats: [format], maxChunk: 9_000,
        namedFileStream: index == 0
      ) { format, alone in options(format, scale: scale, libjpegOnly: alone) }
      let first = 1 + Int(seed % 600)
      let ours = Outcome(
        Self.streamWithLast(bytes, first: first, options: options(format, scale: scale, libjpegOnly: false)))
      let alone = Outcome(
        Self.streamWithLast(bytes, first: first, options: options(format, scale: scale, libjpegOnly: true)))
      if ours != alone {
        problems.append("\(label) \(format) streamed, the rest as the last: \(ours), libjpeg alone: \(alone)")
      }
    }
    return problems
  }

  /// A stream given the first bytes, then all the others with `appendLast` (as a download's end).
  static func streamWithLast(_ bytes: [UInt8], first: Int, options: DecodeOptions) -> Result<Image, DecodeError> {
    let decoder = StreamingDecoder(options: options)
    do throws(DecodeError) {
      let cut = min(first, bytes.count)
      try decoder.append(Array(bytes[..<cut]))
      try decoder.appendLast(Array(bytes[cut...]))
      try decoder.finish()
      guard let size = decoder.outputSize, let format = decoder.outputPixelFormat else {
        return .failure(DecodeError(kind: .invalidArgument, format: nil, message: "no header"))
      }
      var image = try Image(width: size.width, height: size.height, pixelFormat: format)
      let rows = try decoder.readRows(into: &image, at: 0)
      guard rows == size.height else {
        return .failure(DecodeError(kind: .invalidArgument, format: nil, message: "rows missing: \(rows)"))
      }
      return .success(image)
    } catch { return .failure(error) }
  }

  static var progressiveFixtures: [URL] {
    var inputs: [URL] = []
    for directory in [
      "Fixtures/progressive", "Fixtures/images", "Fixtures/hostile", "Fixtures/regressions", "fuzz/seeds",
    ] {
      inputs += VerdictProofTests.files(under: Fixtures.root.appendingPathComponent(directory))
    }
    return inputs.filter { url in
      guard let bytes = try? VerdictProofTests.read(url), VerdictProofTests.isJPEG(bytes) else { return false }
      return Self.isProgressive(bytes)
    }
  }

  /// Whether the bytes have an SOF2 marker (progressive Huffman) before their first scan.
  static func isProgressive(_ bytes: [UInt8]) -> Bool {
    var index = 0
    while index + 1 < bytes.count {
      if bytes[index] == 0xFF && bytes[index + 1] == 0xC2 { return true }
      if bytes[index] == 0xFF && bytes[index + 1] == 0xDA { return false }
      index += 1
    }
    return false
  }

  @Test func everyProgressiveFixtureDecodesAsLibjpegDoes() async throws {
    var problems: [String] = []
    let inputs = Self.progressiveFixtures
    for (index, url) in inputs.enumerated() {
      await Task.yield()
      problems += try Self.disagreements(
        try VerdictProofTests.read(url), name: url.lastPathComponent, seed: UInt64(index + 1))
    }
    #expect(inputs.count >= 15)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  @Test(arguments: ["p420-restart3.jpg", "p444.jpg", "pgray-restart2.jpg", "pcmyk.jpg"])
  func everyTruncationDecodesAsLibjpegDoes(_ name: String) async throws {
    let jpeg = try VerdictProofTests.read(Fixtures.root.appendingPathComponent("Fixtures/progressive/\(name)"))
    var problems: [String] = []
    for length in stride(from: 0, to: jpeg.count + 1, by: max(1, jpeg.count / 60)) {
      await Task.yield()
      problems += try Self.disagreements(
        Array(jpeg[..<length]), name: "\(name)[..<\(length)]", seed: UInt64(length + 1), scales: [.quarter, .full])
    }
    for length in (jpeg.count - 12)..<jpeg.count {
      problems += try Self.disagreements(
        Array(jpeg[..<length]), name: "\(name)[..<\(length)]", seed: UInt64(length + 1), scales: [.eighth])
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  @Test(arguments: ["p420-restart-rows.jpg", "p422-restart5.jpg", "p444-restart1.jpg", "p420-optimized.jpg"])
  func damagedCopiesDecodeAsLibjpegDoes(_ name: String) async throws {
    let jpeg = try VerdictProofTests.read(Fixtures.root.appendingPathComponent("Fixtures/progressive/\(name)"))
    let dataStart = jpeg.count / 10
    var generator = SplitMix(seed: UInt64(jpeg.count))
    var variants: [(String, [UInt8])] = [
      ("no EOI", Array(jpeg.dropLast(2))),
      ("junk after EOI", jpeg + [0x12, 0x34, 0xFF, 0xD8]),
      ("bytes before EOI", Array(jpeg.dropLast(2)) + [0x55, 0xAA, 0xFF, 0xD9]),
    ]
    for round in 0..<24 {
      var damaged = jpeg
      let at = dataStart + Int(generator.next() % UInt64(jpeg.count - dataStart - 2))
      switch round % 4 {
      case 0: damaged[at] ^= UInt8(1 << (generator.next() % 8))
      case 1: damaged[at] = UInt8(truncatingIfNeeded: generator.next())
      case 2:
        // A restart marker renumbered, or one put where none belongs.
        if let marker = (at..<(jpeg.count - 1)).first(where: {
          jpeg[$0] == 0xFF && (0xD0...0xD7).contains(jpeg[$0 + 1])
        }) {
          damaged[marker + 1] = 0xD0 + (damaged[marker + 1] - 0xD0 + 1) % 8
        } else {
          damaged[at] = 0xFF
          damaged[at + 1] = 0xD3
        }
      default:
        damaged.insert(contentsOf: [0xFF, 0xD0 + UInt8(generator.next() % 8)], at: at)
      }
      variants.append(("change \(round) at \(at)", damaged))
    }
    var problems: [String] = []
    for (index, (label, bytes)) in variants.enumerated() {
      await Task.yield()
      problems += try Self.disagreements(bytes, name: "\(name) \(label)", seed: UInt64(index * 7919 + 11))
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// The engine did run: on a clean progressive file it decodes every scan, from every source, at
  /// 1/8 and 1/4 (libjpeg alone decodes 1/2 and full size, where the engine does not pay); with
  /// `libjpegOnly`, lenient decoding, or a damaged file, libjpeg does.
  @Test func theDecoderDecodesCleanFilesAndHandsDamagedOnesToLibjpeg() throws {
    let url = Fixtures.root.appendingPathComponent("Fixtures/progressive/p420-restart3.jpg")
    let bytes = try VerdictProofTests.read(url)
    let scans: UInt64 = 10
    for scale in [JPEGScale.eighth, .quarter, .half, .full] {
      let options = DecodeOptions(jpegScale: scale)
      for (source, decode) in [
        ("memory", { () throws(DecodeError) in _ = try ImageDecoder.decode(bytes, options: options) }),
        ("file", { () throws(DecodeError) in _ = try ImageDecoder.decode(contentsOf: url.path, options: options) }),
        (
          "validation",
          { () throws(DecodeError) in _ = try ImageDecoder.validate(contentsOf: url.path, options: options) }
        ),
        (
          "stream, its file named",
          { () throws(DecodeError) in
            _ = try EighthScaleDecoderTests.streamNamingFile(bytes, file: url.path, options: options).get()
          }
        ),
        (
          "stream, the rest as the last",
          { () throws(DecodeError) in
            _ = try Self.streamWithLast(bytes, first: 20, options: options).get()
          }
        ),
      ] as [(String, () throws(DecodeError) -> Void)] {
        let before = JPEGEngineCounts.current()
        try decode()
        let after = JPEGEngineCounts.current()
        let engine = scale == .eighth || scale == .quarter
        #expect(after.scans - before.scans == (engine ? scans : 0), "\(source) at \(scale.eighths)/8: scans")
        #expect(after.gaveUp == before.gaveUp, "\(source) at \(scale.eighths)/8: gave up")
        // At 1/8 the luma is decoded DC-only and its pixels made from the DCs (a validation makes none).
        let dcOnly: UInt64 = scale == .eighth && source != "validation" ? 1 : 0
        #expect(after.dcOnly - before.dcOnly == dcOnly, "\(source) at \(scale.eighths)/8: DC-only")
      }
    }
    var lenient = DecodeOptions()
    lenient.strictness = .lenient
    var libjpegOnly = DecodeOptions()
    libjpegOnly.libjpegOnly = true
    for options in [lenient, libjpegOnly] {
      let before = JPEGEngineCounts.current()
      _ = try ImageDecoder.decode(bytes, options: options)
      #expect(JPEGEngineCounts.current() == before)
    }
    // A restart marker renumbered in a late scan: libjpeg would resynchronize with a warning.
    var damaged = bytes
    let marker = try #require(
      (bytes.count / 2..<(bytes.count - 1)).first { bytes[$0] == 0xFF && (0xD0...0xD7).contains(bytes[$0 + 1]) })
    damaged[marker + 1] = 0xD0 + (bytes[marker + 1] - 0xD0 + 3) % 8
    let before = JPEGEngineCounts.current()
    _ = try? ImageDecoder.decode(damaged, options: DecodeOptions(jpegScale: .eighth))
    let after = JPEGEngineCounts.current()
    #expect(after.gaveUp - before.gaveUp == 1)
  }

  /// A scan of a JPEG: its SOS segment with its data (up to the next marker that is not a stuffed
  /// zero or a restart marker), its components' ids, spectral selection and successive
  /// approximation high bit.
  struct Scan {
    let range: Range<Int>
    let components: [UInt8]
    let ss: UInt8
    let ah: UInt8
  }

  static func scans(_ jpeg: [UInt8]) -> [Scan] {
    var found: [Scan] = []
    var at = 2
    while at + 4 <= jpeg.count, jpeg[at] == 0xFF {
      let marker = jpeg[at + 1]
      if marker == 0xD9 { break }
      let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
      guard marker == 0xDA else {
        at += 2 + length
        continue
      }
      let count = Int(jpeg[at + 4])
      let components = (0..<count).map { jpeg[at + 5 + 2 * $0] }
      let ss = jpeg[at + 5 + 2 * count]
      let ah = jpeg[at + 7 + 2 * count] >> 4
      var end = at + 2 + length
      while end + 1 < jpeg.count,
        !(jpeg[end] == 0xFF && jpeg[end + 1] != 0 && !(0xD0...0xD7).contains(jpeg[end + 1]))
      {
        end += 1
      }
      found.append(Scan(range: at..<end, components: components, ss: ss, ah: ah))
      at = end
    }
    return found
  }

  /// At 1/8 scale the luma (every component of a 4:4:4 or gray file) is decoded DC-only. A file
  /// whose DC or first nine AC coefficients are not all complete at its end is one libjpeg outputs
  /// with block smoothing (which differs between libjpeg-turbo versions): there the engine gives up
  /// at EOI and libjpeg decodes, so the pixels are libjpeg's every time, and the counts say which
  /// way each went. Comments between scans, streamed in pieces, are read by the engine itself.
  @Test(arguments: ["p420-restart3.jpg", "p444.jpg", "pgray-restart2.jpg"])
  func incompleteProgressionsAreLibjpegsAndCommentsBetweenScansAreTheEngines(_ name: String) async throws {
    let url = Fixtures.root.appendingPathComponent("Fixtures/progressive/\(name)")
    let jpeg = try VerdictProofTests.read(url)
    let scans = Self.scans(jpeg)
    #expect(scans.count >= 6)
    let luma = try #require(scans.first?.components.first)
    func without(_ drop: (Scan) -> Bool) -> [UInt8] {
      var bytes = jpeg
      for scan in scans.reversed() where drop(scan) { bytes.removeSubrange(scan.range) }
      return bytes
    }
    let lumaAC = { (scan: Scan) in scan.components == [luma] && scan.ss > 0 }
    let incomplete: [(String, [UInt8])] = [
      ("DC scans only", without { $0.ss > 0 }),
      ("luma AC from 1 to 5 alone", without { lumaAC($0) && ($0.ss > 1 || $0.ah > 0) }),
      ("luma AC from 6 up alone", without { lumaAC($0) && ($0.ss == 1) }),
      ("without its last scan", without { $0.range == scans[scans.count - 1].range }),
    ]
    var problems: [String] = []
    for (index, (label, bytes)) in incomplete.enumerated() {
      await Task.yield()
      #expect(Self.scans(bytes).count < scans.count, "\(name) \(label)")
      problems += try Self.disagreements(bytes, name: "\(name) \(label)", seed: UInt64(index + 3), scales: [.eighth])
      let before = JPEGEngineCounts.current()
      _ = try ImageDecoder.decode(bytes, options: DecodeOptions(jpegScale: .eighth))
      let after = JPEGEngineCounts.current()
      #expect(after.dcOnly == before.dcOnly, "\(name) \(label): libjpeg made the pixels")
      #expect(after.gaveUp - before.gaveUp == 1, "\(name) \(label): the engine stepped aside at the end")
      // A validation has no pixels to smooth: the engine's verdict stands.
      let file = FileManager.default.temporaryDirectory.appendingPathComponent("incomplete-\(UUID().uuidString).jpg")
      try Data(bytes).write(to: file)
      defer { try? FileManager.default.removeItem(at: file) }
      let validated = JPEGEngineCounts.current()
      _ = try ImageDecoder.validate(contentsOf: file.path, options: DecodeOptions(jpegScale: .eighth))
      #expect(JPEGEngineCounts.current().gaveUp == validated.gaveUp, "\(name) \(label): validated by the engine")
    }
    // Comments of 65,533 bytes before the second scan, or the last, streamed in pieces of at most
    // 1,000 bytes: the engine reads them as it reads every segment between scans.
    let comment = [0xFF, 0xFE, 0xFF, 0xFF] + [UInt8](repeating: 0x43, count: 65_533)
    for before in [1, scans.count - 1] {
      let at = scans[before].range.lowerBound
      let padded = Array(jpeg[..<at]) + Array([[UInt8]](repeating: comment, count: 3).joined()) + Array(jpeg[at...])
      for (scale, format) in [(JPEGScale.eighth, PixelFormatRequest.source), (.eighth, .rgba8), (.full, .rgb8)] {
        let label = "\(name) with comments before scan \(before + 1) at \(scale.eighths)/8 \(format)"
        let counts = JPEGEngineCounts.current()
        let ours = Outcome(
          StreamingDecoderTests.stream(
            padded, options: Self.options(format, scale: scale, libjpegOnly: false), maxChunk: 1_000))
        let after = JPEGEngineCounts.current()
        let alone = Outcome(
          Result { () throws(DecodeError) in
            try ImageDecoder.decode(padded, options: Self.options(format, scale: scale, libjpegOnly: true))
          })
        if ours != alone { problems.append("\(label): \(ours), libjpeg: \(alone)") }
        let engineScans: UInt64 = scale == .full ? 0 : UInt64(scans.count)
        #expect(after.scans - counts.scans == engineScans, "\(label): every scan is the engine's below full size")
        #expect(after.gaveUp == counts.gaveUp, "\(label)")
      }
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }
}
