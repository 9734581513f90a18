import Foundation
import ImageCodecs
import ParseFetch
import Thumbnails

/// What the one decode of a download must produce besides its verdict.
enum DecodeGoal: Sendable {
  /// Only the verdict: a JPEG is decoded at 1/8 (which still entropy-decodes every
  /// coefficient of every scan, so it sees the same damage as a full decode) into a strip of
  /// rows that is reused, so memory follows the width, not the area.
  case verdict
  /// The full-size pixels, handed back by `image(of:)`.
  case pixels
  /// A thumbnail with these options.
  case thumbnail(ThumbnailOptions)
}

/// Validates a download while it arrives with one ``StreamingDecoder`` fed chunk by chunk: a
/// header over the limits stops the transfer on the chunk that completes it, rows are taken as
/// they are decoded, and the verdict is ready with the last byte. It runs on the download's
/// consumer queue (off the cooperative pool), one call at a time.
final class ImageValidator: DownloadValidator {
  private let decoder: StreamingDecoder
  private let goal: DecodeGoal
  private let options: DecodeOptions
  /// The body's start, for the thumbnail goal's header check.
  private var prefix: [UInt8] = []
  private var watchesHeader = true
  private let slots: DecodeSlots?
  private var holdsSlot = false
  /// Where rows go: the whole image for `.pixels`, a reused strip otherwise.
  private var rows: Image?
  private var rowsFilled = 0
  private(set) var value: ValidatedImage?

  /// Rows of the strip a verdict-only decode reads into.
  static let stripRows = 16

  init(options: DecodeOptions, goal: DecodeGoal, slots: DecodeSlots? = nil) {
    self.goal = goal
    self.slots = slots
    var options = options
    switch goal {
    case .pixels: break
    case .verdict: options.jpegScale = .eighth
    case .thumbnail:
      // The bytes are only watched for the header here; the thumbnail's own decode of the
      // complete file, at the plan's scale, gives the verdict in finish(file:). (Once Thumbnails
      // takes rows from a StreamingDecoder, these chunks will feed it instead.)
      options.jpegScale = .eighth
    }
    self.options = options
    decoder = StreamingDecoder(options: options)
  }

  deinit { releaseSlot() }

  func consume(_ bytes: UnsafeRawBufferPointer) throws {
    if case .thumbnail = goal {
      return try watchHeader(bytes)
    }
    takeSlot()
    try decoder.append(bytes)
    try takeRows()
  }

  func finish(file: URL) throws {
    takeSlot()
    defer { releaseSlot() }
    if case .thumbnail(let thumbnail) = goal {
      return try renderThumbnail(of: file.path, thumbnail)
    }
    try decoder.finish()
    try takeRows()
    guard let header = decoder.header else {
      throw DecodeError(kind: .notAnImage, format: nil, message: "no image header")
    }
    if case .pixels = goal, let image = rows, rowsFilled == image.height {
      value = ValidatedImage(header: header, image: image)
    } else {
      value = ValidatedImage(header: header)
    }
    rows = nil
  }

  /// Waits for a decode slot, once: the decoder's memory counts from the first byte it takes.
  private func takeSlot() {
    guard let slots, !holdsSlot else { return }
    slots.acquire()
    holdsSlot = true
  }

  private func releaseSlot() {
    guard holdsSlot else { return }
    holdsSlot = false
    slots?.release()
  }

  /// Throws as soon as the header is complete and over the limits (the verdict a full decode
  /// would give), so the transfer stops; anything else is left to the decode.
  private func watchHeader(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) {
    guard watchesHeader else { return }
    prefix.append(contentsOf: bytes)
    do {
      _ = try ImageDecoder.probe(prefix, limits: options.limits)
      (watchesHeader, prefix) = (false, [])
    } catch  where error.kind == .limitExceeded {
      throw error
    } catch {
      if prefix.count >= 1 << 20 { (watchesHeader, prefix) = (false, []) }
    }
  }

  /// The thumbnail's strict decode is the verdict; options that cannot make a thumbnail of a
  /// valid file do not reject it (a plain validation decides, and the error comes back when the
  /// thumbnail is asked for).
  private func renderThumbnail(of path: String, _ thumbnail: ThumbnailOptions) throws {
    prefix = []
    var options = thumbnail
    options.limits = self.options.limits
    options.decodesEveryScan = true
    let header = try ImageDecoder.probe(contentsOf: path, limits: self.options.limits)
    do {
      value = ValidatedImage(
        header: header, rendered: try Thumbnailer(options: options).renderThumbnail(contentsOf: path))
    } catch .decode(let error) {
      throw error
    } catch {
      _ = try ImageDecoder.validate(contentsOf: path, options: self.options)
      value = ValidatedImage(header: header)
    }
  }

  /// Moves the rows decoded so far out of the decoder.
  private func takeRows() throws(DecodeError) {
    guard let size = decoder.outputSize, let format = decoder.outputPixelFormat else { return }
    if rows == nil {
      let height = if case .pixels = goal { size.height } else { min(size.height, Self.stripRows) }
      rows = try Image(allocatingWidth: size.width, height: height, pixelFormat: format)
    }
    guard var image = rows else { return }
    rows = nil  // keep the buffer uniquely referenced while rows are copied in
    defer { rows = image }
    if case .pixels = goal {
      while rowsFilled < image.height {
        let count = try decoder.readRows(into: &image, at: rowsFilled)
        if count == 0 { break }
        rowsFilled += count
      }
    } else {
      while try decoder.readRows(into: &image, at: 0) > 0 {}
    }
  }
}
