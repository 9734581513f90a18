import FixtureSupport
import Foundation
@_spi(Fuzzing) import ImageCodecs
import Testing

/// The JPEG engine's scan decoders on the inputs of issue 30 (defects 1-3), held to libjpeg decoding
/// the same bytes alone (`libjpegOnly`): the same verdict, message and pixels. The files are
/// `Fixtures/regressions/JPEGScans/` (its make.py and README); the sampling layouts and the
/// restart after marker-free bytes are made here. Serialized and yielding, like VerdictProofTests.
@Suite(.serialized, .timeLimit(.minutes(20))) struct JPEGScanRegressionTests {
  typealias Outcome = EighthScaleDecoderTests.Outcome

  static func fixture(_ name: String) throws -> [UInt8] {
    try VerdictProofTests.read(Fixtures.root.appendingPathComponent("Fixtures/regressions/JPEGScans/\(name)"))
  }

  static func decode(_ bytes: [UInt8], _ format: PixelFormatRequest, eighths: Int, libjpegOnly: Bool) -> Outcome {
    Outcome(
      StreamingDecoderTests.oneCall(
        bytes,
        options: ProgressiveDecoderTests.options(format, scale: JPEGScale(eighths: eighths), libjpegOnly: libjpegOnly)))
  }

  static func pixels(_ outcome: Outcome) -> [UInt8]? {
    guard case .image(let image) = outcome else { return nil }
    return image.withUnsafeBytes { Array($0) }
  }

  // MARK: defect 1: a coefficient's history is its stored value

  /// A first scan that sends AC 11 again with Al=13 stores 8 << 13, 0 in 16 bits, over the 5 sent
  /// before: libjpeg then reads no correction bit for it in the refinement and runs out of data
  /// (a premature end: truncated); the engine that kept the 5's history read one and accepted it.
  @Test func aZeroStoredOverANonzeroCoefficientIsTruncatedOnEveryPath() async throws {
    let bytes = try Self.fixture("progressive-zero-over-nonzero-16x8.jpg")
    let expected = Outcome.error(.truncated, "Corrupt JPEG data: premature end of data segment")
    for eighths in 1...8 {
      for format in [PixelFormatRequest.source, .rgba8, .gray8] {
        #expect(Self.decode(bytes, format, eighths: eighths, libjpegOnly: true) == expected, "libjpeg at \(eighths)/8")
        #expect(Self.decode(bytes, format, eighths: eighths, libjpegOnly: false) == expected, "at \(eighths)/8 \(format)")
      }
    }
    let problems = try ProgressiveDecoderTests.disagreements(bytes, name: "16x8", seed: 30)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// Its one-block sibling, which both accept: a flat grey block (AC 11 is 0; the refinement's last
  /// bit is padding to libjpeg), not the engine's 00 ff ff 00 from a correction bit read for it.
  @Test func aZeroStoredOverANonzeroCoefficientGivesLibjpegsPixels() async throws {
    let bytes = try Self.fixture("progressive-zero-over-nonzero-8x8.jpg")
    for eighths in 1...8 {
      let libjpeg = Self.decode(bytes, .gray8, eighths: eighths, libjpegOnly: true)
      let side = (8 * eighths + 7) / 8
      #expect(Self.pixels(libjpeg) == [UInt8](repeating: 128, count: side * side), "libjpeg at \(eighths)/8")
      #expect(Self.decode(bytes, .gray8, eighths: eighths, libjpegOnly: false) == libjpeg, "at \(eighths)/8")
    }
    let problems = try ProgressiveDecoderTests.disagreements(bytes, name: "8x8", seed: 31)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  // MARK: defect 2: chroma sampled more finely than luma

  /// Every layout of factors 1, 2 and 4 libjpeg reads (at most ten blocks in an MCU).
  static let samplingLayouts: [[(horizontal: Int, vertical: Int)]] = {
    let factors = [1, 2, 4].flatMap { h in [1, 2, 4].map { v in (horizontal: h, vertical: v) } }
    var layouts: [[(horizontal: Int, vertical: Int)]] = []
    for y in factors {
      for cb in factors {
        for cr in factors where y.horizontal * y.vertical + cb.horizontal * cb.vertical + cr.horizontal * cr.vertical <= 10 {
          layouts.append([y, cb, cr])
        }
      }
    }
    return layouts
  }()

  static func label(_ layout: [(horizontal: Int, vertical: Int)]) -> String {
    layout.map { "\($0.horizontal)x\($0.vertical)" }.joined(separator: ",")
  }

  /// Each layout, baseline and progressive, at every scale and output: the pixels and verdict
  /// libjpeg gives alone (the engine decodes the layouts whose luma is the finest-sampled component
  /// and hands the others to libjpeg).
  @Test func everySamplingLayoutDecodesAsLibjpegDoesAtEveryScale() async throws {
    #expect(Self.samplingLayouts.count == 195)
    let image = try EighthScaleDecoderTests.photoLike(width: 75, height: 45, seed: 30)
    var problems: [String] = []
    for layout in Self.samplingLayouts {
      for progressive in [false, true] {
        await Task.yield()
        let name = "\(Self.label(layout))\(progressive ? " progressive" : "")"
        let bytes = try ImageEncoder.encodeJPEG(image, quality: 90, sampling: layout, progressive: progressive)
        for eighths in 1...8 {
          for format in [PixelFormatRequest.source, .gray8] {
            let ours = Self.decode(bytes, format, eighths: eighths, libjpegOnly: false)
            let libjpeg = Self.decode(bytes, format, eighths: eighths, libjpegOnly: true)
            if ours != libjpeg || Self.pixels(ours) == nil {
              problems.append("\(name) at \(eighths)/8 \(format): \(ours), libjpeg alone: \(libjpeg)")
            }
          }
        }
        // Files and validations (the engine's pull path) at the engine's scales.
        problems += try DecoderPathComparison.disagreements(
          bytes, name: name, seed: UInt64(problems.count + 1), library: "libjpeg", formats: [.rgba8], maxChunk: 300
        ) { format, alone in ProgressiveDecoderTests.options(format, scale: .eighth, libjpegOnly: alone) }
      }
    }
    #expect(problems.isEmpty, "\(problems.prefix(40).joined(separator: "\n"))")
  }

  /// The issue's two cases: a flat grey 32x16 file sampled 1x1,2x1,2x1 (its 2-pixel-wide
  /// thumbnail was 77 77 77 09 09 09), and a 65500x16 solid blue one, whose luma rows the engine
  /// read at output width from a narrower plane.
  @Test func chromaFinerThanLumaGivesLibjpegsPixels() async throws {
    let layout = [(horizontal: 1, vertical: 1), (horizontal: 2, vertical: 1), (horizontal: 2, vertical: 1)]
    for (width, pixel) in [(32, [UInt8](repeating: 128, count: 3)), (65500, [0, 0, 255])] {
      var image = try Image(width: width, height: 16, pixelFormat: .rgb8)
      try image.withUnsafeMutableBytes { bytes in
        for i in 0..<bytes.count { bytes[i] = pixel[i % 3] }
      }
      for progressive in [false, true] {
        await Task.yield()
        let bytes = try ImageEncoder.encodeJPEG(image, quality: 90, sampling: layout, progressive: progressive)
        for eighths in [1, 2] {
          let libjpeg = Self.decode(bytes, .rgb8, eighths: eighths, libjpegOnly: true)
          let ours = Self.decode(bytes, .rgb8, eighths: eighths, libjpegOnly: false)
          #expect(Self.pixels(ours) == Self.pixels(libjpeg), "\(width) wide at \(eighths)/8, progressive: \(progressive)")
          #expect(ours == libjpeg)
        }
      }
    }
  }

  // MARK: defect 3: a restart after marker-free bytes

  /// 300 KiB of bytes that are no marker before a restart marker: libjpeg skips them (a harmless
  /// warning). Decoding from a file reads 256 KiB at a time; the engine looking for the marker must
  /// move past what it skipped, or the decode asks for more input forever.
  @Test(arguments: [false, true])
  func aRestartMarkerAfterMarkerFreeBytesIsFoundFromAFile(_ progressive: Bool) async throws {
    let image = try EighthScaleDecoderTests.photoLike(width: 96, height: 64, seed: 3)
    let jpeg = try ImageEncoder.encodeJPEG(
      image, quality: 90, sampling: [(2, 2), (1, 1), (1, 1)], progressive: progressive, restartInterval: 2)
    let start = try #require(Self.firstScanData(jpeg))
    let rst = try #require((start..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && (0xD0...0xD7).contains(jpeg[$0 + 1]) })
    let bytes = Array(jpeg[..<rst]) + [UInt8](repeating: 0x55, count: 300 << 10) + Array(jpeg[rst...])
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString).jpg").path
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    defer { try? FileManager.default.removeItem(atPath: file) }
    for eighths in [1, 2] {
      let options = { (alone: Bool) in
        ProgressiveDecoderTests.options(.rgb8, scale: JPEGScale(eighths: eighths), libjpegOnly: alone)
      }
      let libjpeg = try #require(Self.decodeFile(file, options: options(true)), "libjpeg within the limit")
      let ours = Self.decodeFile(file, options: options(false))
      #expect(ours != nil, "the decode at \(eighths)/8 ended within the limit")
      if let ours { #expect(ours == libjpeg, "at \(eighths)/8") }
      if case .error(let kind, let message) = libjpeg { Issue.record("libjpeg refused it: \(kind): \(message)") }
      let streamed = Outcome(StreamingDecoderTests.stream(bytes, cuts: [100_000, 200_000, 300_000], options: options(false)))
      #expect(streamed == libjpeg, "streamed at \(eighths)/8")
    }
  }

  /// Where the first scan's entropy-coded data starts (after its SOS segment).
  static func firstScanData(_ jpeg: [UInt8]) -> Int? {
    var at = 2
    while at + 4 <= jpeg.count, jpeg[at] == 0xFF {
      let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
      if jpeg[at + 1] == 0xDA { return at + 2 + length }
      at += 2 + length
    }
    return nil
  }

  /// A decode from a file on a thread of its own, waited for 60 seconds: nil if it has not ended
  /// (it is left running; the test fails).
  static func decodeFile(_ path: String, options: DecodeOptions) -> Outcome? {
    final class Box: @unchecked Sendable { var outcome: Outcome? }
    let box = Box()
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      do throws(DecodeError) {
        box.outcome = .image(try ImageDecoder.decode(contentsOf: path, options: options))
      } catch { box.outcome = .error(error.kind, error.message) }
      done.signal()
    }
    return done.wait(timeout: .now() + 60) == .success ? box.outcome : nil
  }
}
