import FixtureSupport
import Foundation
@_spi(Fuzzing) import ImageCodecs
import Testing

/// imgfetch's JPEG engine at 1/8 scale (`Sources/CodecEngines/JPEG`, used for thumbnails and for
/// the validation of JPEGs) must be invisible: for every input, every source (memory, a file, a
/// validation, a stream in random pieces) and every output format, the same verdict, the same error
/// message and the same pixels as libjpeg decoding the same bytes alone (`libjpegOnly`).
///
/// The inputs: every JPEG fixture, a truncation sweep, and large generated photos-like JPEGs in each
/// chroma layout (4:4:4, 4:2:2, 4:4:0, 4:2:0, with and without restart markers; large enough that a
/// second thread decodes the far half of the scan), intact and damaged (cut, bytes changed in either
/// half, EOI gone, bytes before and after EOI).
/// Serialized and yielding between decodes, like VerdictProofTests.
@Suite(.serialized, .timeLimit(.minutes(30))) struct EighthScaleDecoderTests {
  /// What a decode gave: pixels, or an error's kind and message.
  enum Outcome: Equatable, CustomStringConvertible {
    case image(Image)
    case error(DecodeError.Kind, String)

    init(_ result: Result<Image, DecodeError>) {
      switch result {
      case .success(let image): self = .image(image)
      case .failure(let error): self = .error(error.kind, error.message)
      }
    }

    var description: String {
      switch self {
      case .image(let image): "\(image.width)x\(image.height) \(image.pixelFormat)"
      case .error(let kind, let message): "\(kind): \(message)"
      }
    }
  }

  static func options(_ format: PixelFormatRequest, libjpegOnly: Bool) -> DecodeOptions {
    var options = DecodeOptions(pixelFormat: format, jpegScale: .eighth)
    options.libjpegOnly = libjpegOnly
    options.alwaysUsesJPEGEngine = true  // the engine, whatever other suites decode meanwhile
    return options
  }

  /// The disagreements between the two decoders on `bytes`, described: each source decoded by both.
  static func disagreements(_ bytes: [UInt8], name: String, seed: UInt64) throws -> [String] {
    try DecoderPathComparison.disagreements(
      bytes, name: name, seed: seed, library: "libjpeg", formats: [.source, .rgba8, .gray8], maxChunk: 70_000,
      namedFileStream: true, options: { options($0, libjpegOnly: $1) })
  }

  /// A stream of the file's bytes in 100 KB pieces, told it may read the file again (as the
  /// thumbnailer tells it for files), rows read as they come.
  static func streamNamingFile(_ bytes: [UInt8], file: String, options: DecodeOptions) -> Result<Image, DecodeError> {
    StreamingDecoderTests.stream(
      bytes, cuts: Array(stride(from: 100_000, to: bytes.count, by: 100_000)), options: options, file: file)
  }

  @Test func everyJPEGFixtureDecodesAtOneEighthAsLibjpegDoes() async throws {
    var inputs: [URL] = []
    for directory in ["Fixtures/images", "Fixtures/hostile", "Fixtures/regressions", "fuzz/seeds"] {
      inputs += VerdictProofTests.files(under: Fixtures.root.appendingPathComponent(directory))
    }
    var problems: [String] = []
    var checked = 0
    for (index, url) in inputs.enumerated() {
      let bytes = try VerdictProofTests.read(url)
      guard VerdictProofTests.isJPEG(bytes) else { continue }
      await Task.yield()
      checked += 1
      problems += try Self.disagreements(bytes, name: url.lastPathComponent, seed: UInt64(index + 1))
    }
    #expect(checked > 40)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  @Test func everyTruncationOfAJPEGDecodesAsLibjpegDoes() async throws {
    let jpeg = try Fixtures.bytes("testorig.jpg")
    var problems: [String] = []
    for length in stride(from: 0, to: jpeg.count + 1, by: 53) {
      await Task.yield()
      problems += try Self.disagreements(
        Array(jpeg[..<length]), name: "testorig.jpg[..<\(length)]", seed: UInt64(length + 1))
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// A photo-like RGB image: smooth gradients, edges and fine noise, so that its JPEG has the code
  /// lengths and runs of a real photo and is large (a few MB at quality 92).
  static func photoLike(width: Int, height: Int, seed: UInt64) throws -> Image {
    var image = try Image(width: width, height: height, pixelFormat: .rgb8)
    var generator = SplitMix(seed: seed)
    try image.withUnsafeMutableBytes { pixels in
      for y in 0..<height {
        for x in 0..<width {
          let noise = Int(generator.next() % 64)
          let band = (x / 97 + y / 61) % 2 == 0 ? 40 : 0
          let offset = y * width * 3 + x * 3
          pixels[offset] = UInt8(clamping: (x * 255 / width) / 2 + noise + band)
          pixels[offset + 1] = UInt8(clamping: (y * 255 / height) / 2 + noise)
          pixels[offset + 2] = UInt8(clamping: ((x + y) * 255 / (width + height)) / 2 + 64 - noise + band)
        }
      }
    }
    return image
  }

  /// The layouts: 4:4:4, 4:2:2, 4:4:0 (vertical upsampling: libjpeg decodes it alone), 4:2:0, and
  /// 4:2:0 with restart markers every 8 MCUs.
  static let layouts: [(name: String, horizontal: Int, vertical: Int, restart: Int)] = [
    ("444", 1, 1, 0), ("422", 2, 1, 0), ("440", 1, 2, 0), ("420", 2, 2, 0), ("420-restarts", 2, 2, 8),
  ]

  @Test(arguments: layouts.map(\.name))
  func aLargeJPEGIntactAndDamagedDecodesAsLibjpegDoes(_ layout: String) async throws {
    let settings = try #require(Self.layouts.first { $0.name == layout })
    let image = try Self.photoLike(width: 1900, height: 1400, seed: 42)
    let jpeg = try ImageEncoder.encodeJPEG(
      image, quality: 92, lumaSampling: (settings.horizontal, settings.vertical), restartInterval: settings.restart)
    #expect(jpeg.count > 1_200_000, "\(jpeg.count) bytes: too small for a second thread")
    var variants: [(String, [UInt8])] = [("intact", jpeg)]
    for fraction in [0.3, 0.5, 0.75, 0.999] {
      variants.append(("cut at \(fraction)", Array(jpeg[..<Int(Double(jpeg.count) * fraction)])))
    }
    variants.append(("no EOI", Array(jpeg.dropLast(2))))
    variants.append(("junk after EOI", jpeg + [0x12, 0x34, 0xFF, 0xD8]))
    variants.append(("bytes before EOI", Array(jpeg.dropLast(2)) + [0x55, 0xAA, 0xFF, 0xD9]))
    variants.append(
      ("a comment before EOI", Array(jpeg.dropLast(2)) + [0xFF, 0xFE, 0x00, 0x04, 0x41, 0x42, 0xFF, 0xD9]))
    var generator = SplitMix(seed: UInt64(jpeg.count))
    for round in 0..<10 {
      // Changed bytes past the headers, in the first and the second half of the scan.
      var damaged = jpeg
      let half = round % 2 == 0 ? 1000..<(jpeg.count / 2) : (jpeg.count / 2)..<(jpeg.count - 2)
      let at = half.lowerBound + Int(generator.next() % UInt64(half.count))
      damaged[at] = UInt8(truncatingIfNeeded: generator.next() | 1) ^ damaged[at]
      if damaged[at] == 0xFF { damaged[at] = 0xFE }
      variants.append(("byte \(at) changed", damaged))
    }
    var problems: [String] = []
    for (index, (label, bytes)) in variants.enumerated() {
      await Task.yield()
      problems += try Self.disagreements(bytes, name: "\(layout) \(label)", seed: UInt64(index * 7919 + 11))
    }
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }
}
