import Foundation
import ImageCodecs
import Thumbnails

/// One input through every local path a file can take, against the libraries alone: the same
/// verdict and error kind everywhere, and the library's pixels wherever pixels come out.
///
/// The reference is libjpeg's or libpng's full strict decode of `referenceBytes` (the input itself,
/// unless a test says the input must be judged as other bytes, such as the file without what follows
/// its end). A JPEG's scaled decodes must keep its verdict (a DCT-scaled decode still entropy-decodes
/// every coefficient) and give the library's pixels at that scale; a thumbnail at each scale its plan
/// can take must equal the thumbnail made from the library's decode at that scale.
struct CrossPathCheck {
  let name: String
  let bytes: [UInt8]
  /// The input as a file (the file and validation paths read it).
  let file: String
  let seed: UInt64
  var referenceBytes: [UInt8]? = nil

  /// The scales a thumbnail may decode at (1/8, 1/4, 1/2, 1): a JPEG's, an opaque still WebP's.
  static let scales: [JPEGScale] = [.eighth, .quarter, .half, .full]

  /// Random chunkings of each streamed decode.
  static let streamSeeds: [UInt64] = [1, 2, 3]

  var reference: PathOutcome { DecodePaths.fromMemory(referenceBytes ?? bytes, options: DecodePaths.libraryAlone()) }

  /// The disagreements, one line each; empty when every path agrees with the library.
  func problems() -> [String] {
    var problems: [String] = []
    let expected = reference
    func check(_ path: String, _ outcome: PathOutcome, against reference: PathOutcome, pixels: Bool = true) {
      if outcome.verdict != reference.verdict {
        problems.append("\(name): \(path): \(outcome), the library: \(reference)")
      } else if pixels, let image = outcome.image, let wanted = reference.image, image != wanted {
        problems.append("\(name): \(path): accepted with other pixels than the library's")
      }
    }
    check("decoded from memory", DecodePaths.fromMemory(bytes), against: expected)
    check("decoded from a file", DecodePaths.fromFile(file), against: expected)
    check("validated (imgfetch verify)", DecodePaths.validated(file), against: expected)
    for seed in Self.streamSeeds {
      check(
        "streamed in pieces (seed \(seed))", DecodePaths.streamed(bytes, seed: self.seed &* 31 &+ seed),
        against: expected)
    }
    let header = try? ImageDecoder.probe(bytes)
    // A JPEG's DCT scaling, an opaque still WebP's scaled output (libwebp's decoder at any scale).
    let scales = ImageFormat(sniffing: bytes) == .jpeg || header?.shrinksOnLoad == true
    if scales {
      for scale in Self.scales where scale != .full {
        let options = DecodeOptions(jpegScale: scale)
        let library = DecodePaths.fromMemory(referenceBytes ?? bytes, options: DecodePaths.libraryAlone(options))
        check("libjpeg alone at \(scale.eighths)/8", library, against: expected, pixels: false)
        check(
          "decoded from memory at \(scale.eighths)/8", DecodePaths.fromMemory(bytes, options: options), against: library
        )
        check(
          "decoded from a file at \(scale.eighths)/8", DecodePaths.fromFile(file, options: options), against: library)
        check(
          "streamed at \(scale.eighths)/8",
          DecodePaths.streamed(bytes, options: options, seed: seed &+ UInt64(scale.eighths)),
          against: library)
      }
    }
    let plans = thumbnailPlans(header)
    for (label, options) in plans {
      let library = DecodePaths.libraryThumbnail(of: referenceBytes ?? bytes, options: options)
      check("\(label), from the library's decode", library, against: expected, pixels: false)
      check("\(label) from memory", DecodePaths.thumbnail(of: bytes, options: options), against: library)
      check("\(label) of the file", DecodePaths.thumbnail(ofFile: file, options: options), against: library)
    }
    return problems
  }

  /// The thumbnails to make: at each scale the plan can take for this header (for a PNG, or when
  /// the header cannot be read, one of any size).
  func thumbnailPlans(_ header: ImageHeader?) -> [(label: String, options: ThumbnailOptions)] {
    var plans: [(String, ThumbnailOptions)] = []
    if let header {
      for scale in header.shrinksOnLoad ? Self.scales : [.full] {
        if let options = DecodePaths.thumbnailOptions(for: header, at: scale) {
          plans.append(("thumbnail at \(scale.eighths)/8", options))
        }
      }
    }
    return plans.isEmpty ? [("thumbnail", ThumbnailOptions(size: .longestSide(4), format: .png()))] : plans
  }

  /// The disagreements of a download's validation (see ``DownloadPath``) with the library: the
  /// verdict, the pixels, and a thumbnail at one of the plan's scales (which one turns with `index`).
  func downloadProblems(via downloads: DownloadPath, index: Int) async -> [String] {
    let expected = reference
    let plans = thumbnailPlans(try? ImageDecoder.probe(bytes))
    let (label, options) = plans[index % plans.count]
    let thumbnail = DecodePaths.libraryThumbnail(of: referenceBytes ?? bytes, options: options)
    var problems: [String] = []
    for (path, outcome) in await downloads.outcomes(
      of: file, byteCount: bytes.count, index: index, seed: seed, thumbnail: options)
    {
      let wanted = path.hasSuffix("thumbnail") ? thumbnail : expected
      if outcome.verdict != expected.verdict {
        problems.append("\(name): \(path): \(outcome), the library: \(expected)")
      } else if let image = outcome.image, let reference = wanted.image, image != reference {
        problems.append("\(name): \(path) (\(label)): accepted with other pixels than the library's")
      }
    }
    return problems
  }
}
