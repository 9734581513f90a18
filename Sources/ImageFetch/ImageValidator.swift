import FoundationEssentials
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
  /// A thumbnail with these options: the decode runs at the plan's DCT scale and its rows feed
  /// a ``/Thumbnails/ThumbnailStream``.
  case thumbnail(ThumbnailOptions)
  /// Several thumbnails: the whole picture at the scale the largest needs
  /// (``/Thumbnails/Thumbnailer/scale(for:sizes:)``), kept for
  /// ``/Thumbnails/Thumbnailer/makeThumbnails(forFileAt:sizes:from:header:)``.
  case thumbnails(ThumbnailOptions, [ThumbnailSize])
}

/// Validates a download while it arrives with one ``/ImageCodecs/StreamingDecoder`` fed chunk by chunk: a
/// header over the limits (or bytes that are no image) stop the transfer on the chunk that shows
/// it, rows are taken as they are decoded, and the verdict is ready with the last byte. It runs on
/// the download's consumer queue (off the cooperative pool), one call at a time, and holds one of
/// the fetcher's decode slots from its first byte to its verdict.
final class ImageValidator: DownloadValidator {
  private let decoder: StreamingDecoder
  private let wantsPixels: Bool
  /// Whether the pixels are the decode for several thumbnails, not the full-size image.
  private var pixelsAreForSizes = false
  /// The thumbnail being made from the rows, until it fails for a reason that is not the file's.
  private var stream: ThumbnailStream?
  /// Where rows go: the whole image for `.pixels`, a reused strip otherwise.
  private var rows: Image?
  private var rowsFilled = 0
  private let slots: DecodeSlots?
  private var holdsSlot = false
  private(set) var value: ValidatedImage?

  /// Rows of the strip a verdict-only decode reads into.
  static let stripRows = 16

  init(options: DecodeOptions, goal: DecodeGoal, slots: DecodeSlots? = nil) {
    self.slots = slots
    var options = options
    switch goal {
    case .pixels:
      wantsPixels = true
    case .verdict:
      wantsPixels = false
      options.jpegScale = .eighth
    case .thumbnails(var thumbnail, let sizes):
      wantsPixels = true
      pixelsAreForSizes = true
      thumbnail.limits = options.limits
      let thumbnailer = Thumbnailer(options: thumbnail)
      decoder = StreamingDecoder(
        options: thumbnailer.decodeOptions, scaleForHeader: { thumbnailer.scale(for: $0, sizes: sizes) })
      return
    case .thumbnail(var thumbnail):
      wantsPixels = false
      thumbnail.limits = options.limits
      if let stream = try? ThumbnailStream(options: thumbnail) {
        self.stream = stream
        decoder = StreamingDecoder(options: stream.decodeOptions, scaleForHeader: stream.scale(for:))
        return
      }
      // Options that cannot make a thumbnail do not reject a valid file: validate it, and let
      // the thumbnail step report them.
      options.jpegScale = .eighth
    }
    decoder = StreamingDecoder(options: options)
  }

  deinit { releaseSlot() }

  func consume(_ bytes: UnsafeRawBufferPointer) throws {
    takeSlot()
    try decoder.append(bytes)
    try takeRows()
  }

  /// A JPEG's decoder makes its last rows as soon as it knows no more bytes come; nothing else
  /// gains from the rest in one piece.
  var takesTheRestAtOnce: Bool { decoder.header?.format == .jpeg }

  /// The rest of the download at once, known to be all of it.
  func consumeLast(_ bytes: UnsafeRawBufferPointer) throws {
    takeSlot()
    try decoder.appendLast(bytes)
    try takeRows()
  }

  func finish(file: String) throws {
    takeSlot()
    defer { releaseSlot() }
    try decoder.finish()
    try takeRows()
    guard let header = decoder.header else {
      throw DecodeError(kind: .notAnImage, format: nil, message: "no image header")
    }
    var thumbnail: Image?
    if let stream {
      do {
        thumbnail = try stream.finish(from: decoder)
      } catch .decode(let error) {
        throw error
      } catch {
        thumbnail = nil  // the thumbnail step makes it again and reports why it cannot
      }
    }
    let image = wantsPixels && rowsFilled == rows?.height ? rows : nil
    value = ValidatedImage(header: header, image: pixelsAreForSizes ? nil : image, thumbnail: thumbnail)
    if pixelsAreForSizes { value?.decodedForSizes = image }
    rows = nil
    self.stream = nil
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

  /// Moves the rows decoded so far out of the decoder: into the thumbnail, the full image, or
  /// the scratch strip.
  private func takeRows() throws {
    if let stream {
      do {
        return try stream.consumeRows(from: decoder)
      } catch .decode(let error) {
        throw error
      } catch {
        self.stream = nil  // not the file's fault: go on validating into the strip
      }
    }
    guard let size = decoder.outputSize, let format = decoder.outputPixelFormat else { return }
    if rows == nil {
      let height = wantsPixels ? size.height : min(size.height, Self.stripRows)
      rows = try Image(width: size.width, height: height, pixelFormat: format)
    }
    guard var image = rows else { return }
    rows = nil  // keep the buffer uniquely referenced while rows are copied in
    defer { rows = image }
    if wantsPixels {
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
