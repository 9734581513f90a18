import FixtureSupport
import Foundation
@_spi(Fuzzing) import ImageCodecs

/// Compares imgfetch's own decoding path with the library alone on the same bytes (the JPEG 1/8
/// decoder with `libjpegOnly`, the PNG image-data path with `libpngOnly`): every source (memory, a
/// stream in random pieces, a file, a validation) decoded both ways must give the same outcome.
enum DecoderPathComparison {
  typealias Outcome = EighthScaleDecoderTests.Outcome

  /// The disagreements on `bytes`, described.
  /// - Parameters:
  ///   - options: The options for a pixel format, with the library alone (`true`) or not.
  ///   - library: How the library is named in a description ("libjpeg", "libpng").
  ///   - formats: The pixel formats decoded from memory and streamed (files and validations: `.source`).
  ///   - maxChunk: The largest piece of the random stream.
  ///   - namedFileStream: Also a stream told its file (100 KB pieces), as the thumbnailer tells it.
  static func disagreements(
    _ bytes: [UInt8], name: String, seed: UInt64, library: String, formats: [PixelFormatRequest], maxChunk: Int,
    namedFileStream: Bool = false, options: (PixelFormatRequest, Bool) -> DecodeOptions
  ) throws -> [String] {
    var problems: [String] = []
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("paths-\(UUID().uuidString)").path
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    defer { try? FileManager.default.removeItem(atPath: file) }
    func compare(_ source: String, _ decode: (DecodeOptions) -> Outcome, format: PixelFormatRequest) {
      let ours = decode(options(format, false))
      let alone = decode(options(format, true))
      if ours != alone { problems.append("\(name) \(format) \(source): \(ours), \(library) alone: \(alone)") }
    }
    for format in formats {
      compare("from memory", { Outcome(StreamingDecoderTests.oneCall(bytes, options: $0)) }, format: format)
      compare(
        "streamed",
        {
          Outcome(
            StreamingDecoderTests.stream(bytes, options: $0, seed: seed, maxChunk: 1 + Int(seed % UInt64(maxChunk))))
        },
        format: format)
    }
    if namedFileStream {
      compare(
        "streamed, its file named",
        { Outcome(EighthScaleDecoderTests.streamNamingFile(bytes, file: file, options: $0)) }, format: .source)
    }
    compare(
      "from a file",
      { options in
        do throws(DecodeError) { return .image(try ImageDecoder.decode(contentsOf: file, options: options)) } catch {
          return .error(error.kind, error.message)
        }
      }, format: .source)
    compare(
      "validated",
      { options in
        do throws(DecodeError) {
          _ = try ImageDecoder.validate(contentsOf: file, options: options)
          return .error(.invalidArgument, "accepted")
        } catch { return .error(error.kind, error.message) }
      }, format: .source)
    return problems
  }
}
