import Foundation
import ImageCodecs
import ParseFetch
import Thumbnails

/// What the one decode of a download must produce besides its verdict.
enum DecodeGoal: Sendable {
  /// Only the verdict: a JPEG is decoded at 1/8 (which still entropy-decodes every
  /// coefficient of every scan, so it sees the same damage), into nothing kept.
  case verdict
  /// The full-size pixels, handed back by `image(of:)`.
  case pixels
  /// A thumbnail with these options (the verdict comes from the thumbnail's own decode).
  case thumbnail(ThumbnailOptions)
}

/// Validates a download as it arrives: the header is read from the first bytes, so a file over
/// the limits stops the transfer at once; the verdict comes from the one decode the caller
/// needs anyway (see ``DecodeGoal``), run on the download's consumer queue, off the
/// cooperative pool.
final class ImageValidator: DownloadValidator {
  private let options: DecodeOptions
  private let goal: DecodeGoal
  /// The body's first bytes, until the header could be read.
  private var prefix: [UInt8] = []
  private var readsHeader = true
  private(set) var value: ValidatedImage?

  /// The most of a body's start kept to find its header (EXIF and ICC data come first).
  static let headerWindow = 1 << 20

  init(options: DecodeOptions, goal: DecodeGoal) {
    self.options = options
    self.goal = goal
  }

  func consume(_ bytes: UnsafeRawBufferPointer) throws {
    guard readsHeader else { return }
    prefix.append(contentsOf: bytes)
    do {
      _ = try ImageDecoder.probe(prefix, limits: options.limits)
      (readsHeader, prefix) = (false, [])
    } catch  where error.kind == .limitExceeded {
      throw error  // the same verdict the full decode would give, before the rest arrives
    } catch {
      // Not enough bytes yet; anything else is left to the decode, which gives the verdict.
      if prefix.count >= Self.headerWindow { (readsHeader, prefix) = (false, []) }
    }
  }

  func finish(file: URL) throws {
    prefix = []
    let path = file.path
    switch goal {
    case .pixels:
      let image = try ImageDecoder.decode(contentsOf: path, options: options)
      value = ValidatedImage(header: try ImageDecoder.probe(contentsOf: path, limits: options.limits), image: image)
    case .verdict, .thumbnail:
      var cheap = options
      cheap.jpegScale = .eighth
      _ = try ImageDecoder.decode(contentsOf: path, options: cheap)
      value = ValidatedImage(header: try ImageDecoder.probe(contentsOf: path, limits: options.limits))
    }
  }
}
