internal import SystemFiles

/// The text an image file carries ahead of its pixels, read from the file's first bytes without
/// decoding anything: JPEG `COM` segments, PNG `tEXt` and uncompressed `iTXt` chunks, and a WebP
/// file's `ICMT` comment chunk (found by walking its chunk headers); none from a GIF. Also whether the file ends as a
/// complete file does, and its colour space (its ICC profile and, for PNG, `sRGB`/`gAMA`/`cHRM`).
///
/// ```swift
/// let metadata = try ImageMetadata.read(contentsOf: "thumb.jpg")
/// if metadata.isComplete, let note = metadata.comments.first { print(note) }
/// ```
///
/// The read is bounded: at most ``defaultHeadBytes`` (or the `headBytes` asked for) from the start
/// and 12 bytes from the end, whatever the file claims (a WebP file: its chunk headers, and its
/// text and profile chunks up to 64 KiB and the chunk limit); the colour space comes from the
/// decoder's header read, which stops at the image data. It checks structure only as far as it walks
/// (segment and chunk lengths, not checksums or pixel data): it is for files such as thumbnails
/// that a program wrote itself, not a validation (``ImageDecoder`` validates).
public struct ImageMetadata: Sendable, Equatable {
  /// One text entry.
  public struct Text: Sendable, Equatable {
    /// The PNG keyword; `Comment` for a JPEG `COM` segment.
    public let keyword: String
    /// The text, decoded as UTF-8 (invalid bytes replaced).
    public let text: String

    /// Creates an entry.
    /// - Parameters:
    ///   - keyword: The keyword.
    ///   - text: The text.
    public init(keyword: String, text: String) {
      self.keyword = keyword
      self.text = text
    }
  }

  /// The keyword ``ImageEncoder`` gives a comment in PNG, and this type gives a JPEG `COM` segment.
  public static let commentKeyword = "Comment"
  /// How many bytes from the start of a file ``read(contentsOf:headBytes:readsColor:)`` reads by default.
  public static let defaultHeadBytes = 16 << 10

  /// The file's format.
  public let format: ImageFormat
  /// The text entries before the image data (the first scan or `IDAT`), in file order, as far as
  /// the bytes read reach.
  public let texts: [Text]
  /// Whether the file ends with a JPEG `EOI` marker, a PNG `IEND` chunk (with its checksum) or a
  /// GIF trailer (`0x3B`), or is as long as its WebP RIFF header says.
  public let isComplete: Bool
  /// The colour space the file declares, its profile judged (see ``ColorSpace``); `nil` when not read.
  public let colorSpace: ColorSpace?

  /// The embedded ICC profile in use, as stored; `nil` without one (or when not read).
  public var iccProfile: [UInt8]? { colorSpace?.iccProfile }

  /// The texts whose keyword is ``commentKeyword`` (every JPEG comment).
  public var comments: [String] { texts.filter { $0.keyword == Self.commentKeyword }.map(\.text) }

  /// Creates metadata.
  /// - Parameters:
  ///   - format: The format.
  ///   - texts: The text entries.
  ///   - isComplete: Whether the file ends completely.
  ///   - colorSpace: The colour space, if read.
  public init(format: ImageFormat, texts: [Text], isComplete: Bool, colorSpace: ColorSpace? = nil) {
    self.format = format
    self.texts = texts
    self.isComplete = isComplete
    self.colorSpace = colorSpace
  }

  /// Reads the metadata of an image file. A FIFO or device at the path is refused, never waited on.
  /// - Parameters:
  ///   - path: The file.
  ///   - headBytes: The most bytes read from the start.
  ///   - readsColor: Whether ``colorSpace`` is read too (for PNG and JPEG, a header read that stops at
  ///     the image data, within the standard limits); `true` by default.
  /// - Returns: The metadata.
  /// - Throws: ``DecodeError``: ``DecodeError/Kind/io`` when the file cannot be opened or read or is
  ///   not a regular file, ``DecodeError/Kind/notAnImage`` when it is not a PNG, JPEG, WebP, GIF, HEIC or AVIF file.
  public static func read(contentsOf path: String, headBytes: Int = defaultHeadBytes, readsColor: Bool = true)
    throws(DecodeError) -> ImageMetadata
  {
    var metadata: ImageMetadata
    do {
      let file = try ReadableFile(path: path)
      let size = file.status.size
      let head = try file.read(count: min(max(0, headBytes), size), at: 0)
      if WebPChunks.isWebP(head) {
        let chunks = WebPChunks(size: size) { (offset, count) in try? file.read(count: count, at: offset) }
        metadata = chunks.metadata(readsColor: readsColor)
      } else {
        let tail = try file.read(count: min(12, size), at: max(0, size - 12))
        metadata = try parse(head: head, tail: tail)
      }
    } catch let error as SystemError {
      throw DecodeError(kind: .io, format: nil, message: error.description, path: path)
    } catch let error as DecodeError {
      var located = error
      located.path = path
      throw located
    } catch {
      throw DecodeError(kind: .io, format: nil, message: "\(error)", path: path)
    }
    if readsColor && metadata.format != .webp {  // WebPChunks read the ICCP chunk itself
      let header = try? ImageDecoder.probe(contentsOf: path)
      metadata = metadata.with(colorSpace: header?.colorSpace)
    }
    return metadata
  }

  /// The same metadata with a colour space.
  func with(colorSpace: ColorSpace?) -> ImageMetadata {
    ImageMetadata(format: format, texts: texts, isComplete: isComplete, colorSpace: colorSpace)
  }

  /// Reads the metadata of an image file's bytes.
  /// - Parameter bytes: The start of a file, or all of it; `isComplete` is judged from the last 12
  ///   of these bytes.
  /// - Returns: The metadata.
  /// - Throws: ``DecodeError/Kind/notAnImage`` when the bytes are not a PNG, JPEG, WebP, GIF, HEIC or AVIF file.
  public static func read(_ bytes: [UInt8]) throws(DecodeError) -> ImageMetadata {
    if WebPChunks.isWebP(bytes) {
      return WebPChunks(size: bytes.count) { (offset, count) in
        offset <= bytes.count ? Array(bytes[offset..<min(bytes.count, offset + count)]) : nil
      }.metadata(readsColor: true)
    }
    let metadata = try parse(head: bytes, tail: Array(bytes.suffix(12)))
    return metadata.with(colorSpace: try? ImageDecoder.probe(bytes).colorSpace)
  }

  static func parse(head: [UInt8], tail: [UInt8]) throws(DecodeError) -> ImageMetadata {
    if ImageFormat(sniffing: head) == .jpeg {
      let complete = tail.count >= 2 && tail[tail.count - 2] == 0xFF && tail[tail.count - 1] == 0xD9
      return ImageMetadata(format: .jpeg, texts: jpegComments(head), isComplete: complete)
    }
    if head.count >= 8, head[..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
      return ImageMetadata(format: .png, texts: pngTexts(head), isComplete: tail == iend)
    }
    if ImageFormat(sniffing: head) == .gif {
      return ImageMetadata(format: .gif, texts: [], isComplete: tail.last == 0x3B)  // the trailer
    }
    // A HEIF (imgfetch writes none, so it carries no stamp): its format; whether it is complete,
    // only a decode can say.
    if let format = ImageFormat(sniffing: head), format == .heic || format == .avif {
      return ImageMetadata(format: format, texts: [], isComplete: true)
    }
    throw DecodeError(kind: .notAnImage, format: nil, message: "not a PNG, JPEG, WebP, GIF, HEIC or AVIF file")
  }

  /// The `COM` segments before the first scan (`SOS`), walking marker segments from `SOI`.
  static func jpegComments(_ bytes: [UInt8]) -> [Text] {
    var texts: [Text] = []
    var at = 2
    while at + 4 <= bytes.count {
      guard bytes[at] == 0xFF else {  // a byte before a marker: extraneous data, skipped as libjpeg does
        at += 1
        continue
      }
      let marker = bytes[at + 1]
      if marker == 0xFF {  // fill byte
        at += 1
        continue
      }
      if marker == 0xDA || marker == 0xD9 { break }  // image data, or the end
      let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
      guard length >= 2, at + 2 + length <= bytes.count else { break }
      if marker == 0xFE {
        texts.append(
          Text(keyword: commentKeyword, text: String(decoding: bytes[(at + 4)..<(at + 2 + length)], as: UTF8.self)))
      }
      at += 2 + length
    }
    return texts
  }

  /// The `tEXt` and uncompressed `iTXt` chunks before `IDAT`, walking chunks from the signature.
  static func pngTexts(_ bytes: [UInt8]) -> [Text] {
    var texts: [Text] = []
    var at = 8
    while at + 8 <= bytes.count {
      let length = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
      let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
      if type == "IDAT" || type == "IEND" { break }
      let start = at + 8
      guard length <= Int(Int32.max), start + length + 4 <= bytes.count else { break }
      let data = bytes[start..<(start + length)]
      if type == "tEXt" || type == "iTXt", let nul = data.firstIndex(of: 0),
        let text = type == "tEXt" ? data[(nul + 1)...] : uncompressedInternationalText(data[(nul + 1)...])
      {
        let keyword = String(decoding: data[..<nul], as: UTF8.self)
        texts.append(Text(keyword: keyword, text: String(decoding: text, as: UTF8.self)))
      }
      at = start + length + 4
    }
    return texts
  }

  /// The text of an `iTXt` chunk after its keyword: compression flag and method, language tag and
  /// NUL, translated keyword and NUL, then the text; `nil` when compressed or malformed.
  static func uncompressedInternationalText(_ rest: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
    guard rest.count >= 2, rest[rest.startIndex] == 0 else { return nil }
    var text = rest.dropFirst(2)
    for _ in 0..<2 {
      guard let end = text.firstIndex(of: 0) else { return nil }
      text = text[(end + 1)...]
    }
    return text
  }
}
