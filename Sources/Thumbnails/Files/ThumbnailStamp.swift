public import ImageCodecs

/// The record a thumbnail file carries of how it was made, so that a later run can reuse it
/// without decoding anything.
///
/// It is one line of text, stored in the file itself as the encoder's comment (a JPEG `COM`
/// segment right after the JFIF header, a PNG `tEXt` chunk with keyword `Comment` right after
/// `IHDR`, a WebP `ICMT` chunk; see ``/ImageCodecs/ImageEncoder/encode(_:as:comment:)``), so the file
/// and its record are written in the same atomic rename and can never disagree:
///
///     imgfetch-thumbnail/1 source=photo.jpg bytes=48213 mtime=1732880000.123456789 size=256
///     fit=inside upscale=0 rotate=1 filter=lanczos3 format=jpeg/85 color=srgb out=256x171
///
/// (on one line). Everything before `out=` is the key: a thumbnail is reused only when the key
/// equals the one the current source and options give. `format=` is the encoder's
/// ``/ImageCodecs/ImageEncoding/settingsLabel`` and `color=` the ``ThumbnailColorSpace``, so another
/// format, quality or colour choice rebuilds the thumbnail; ` meta=exif` ends the key of a thumbnail
/// that keeps the source's Exif (``ThumbnailOptions/keepsExif``), then ` bg=#rrggbb` for a
/// ``ThumbnailOptions/background`` other than white, then ` crop=attention` for a cover crop
/// anchored by ``ThumbnailOptions/cropAnchor`` elsewhere than the centre. The source's size and modification time
/// are part of it, so a replaced original is noticed even when its new timestamp is older.
public struct ThumbnailStamp: Sendable, Equatable {
  /// The version tag that starts every stamp.
  public static let tag = "imgfetch-thumbnail/1"
  /// The PNG `tEXt` keyword that versions before the encoder wrote comments used; such stamps are
  /// still read.
  static let legacyPNGKeyword = "imgfetch-thumbnail"

  /// The key: the source's identity and every option that changes the pixels or the format.
  public let key: String
  /// The thumbnail's width.
  public let width: Int
  /// The thumbnail's height.
  public let height: Int

  /// Creates a stamp.
  /// - Parameters:
  ///   - key: See ``key(sourceName:sourceBytes:sourceModified:options:format:)``.
  ///   - width: The thumbnail's width.
  ///   - height: The thumbnail's height.
  public init(key: String, width: Int, height: Int) {
    self.key = key
    self.width = width
    self.height = height
  }

  /// The stamp's text: the key, then `out=WxH`.
  public var text: String { "\(key) out=\(width)x\(height)" }

  /// Reads the stamp of a thumbnail file without decoding anything: the file's comment, read by
  /// ``/ImageCodecs/ImageMetadata`` from its first bytes. The file must also end as a complete file does (JPEG
  /// `EOI`, PNG `IEND`), so a file cut short (by a power failure after an unsynced write, say) is
  /// not taken for a thumbnail. A FIFO or device at the path is not a thumbnail (and is not waited on).
  /// - Parameter path: The thumbnail file.
  /// - Returns: The stamp, or `nil` when the file is missing, unreadable, incomplete or carries none.
  public static func read(fromFileAt path: String) -> ThumbnailStamp? {
    guard let metadata = try? ImageMetadata.read(contentsOf: path, headBytes: 4096, readsColor: false),
      metadata.isComplete
    else { return nil }
    let keywords = [ImageMetadata.commentKeyword, legacyPNGKeyword]
    return metadata.texts.lazy.filter { keywords.contains($0.keyword) && $0.text.hasPrefix(tag + " ") }
      .compactMap { ThumbnailStamp(text: $0.text) }.first
  }

  /// Whether a file carries a stamp in its first bytes, complete or not: a thumbnail imgfetch made,
  /// perhaps cut short, as opposed to someone else's file at a thumbnail's name.
  /// - Parameter path: The file.
  /// - Returns: False when it is missing, unreadable, not a regular file or carries none.
  static func isCarried(byFileAt path: String) -> Bool {
    guard let metadata = try? ImageMetadata.read(contentsOf: path, headBytes: 4096, readsColor: false) else {
      return false
    }
    let keywords = [ImageMetadata.commentKeyword, legacyPNGKeyword]
    return metadata.texts.contains { keywords.contains($0.keyword) && ThumbnailStamp(text: $0.text) != nil }
  }

  /// The source name a key records (`source=`, as escaped there).
  static func sourceName(inKey key: String) -> String? {
    key.split(separator: " ").first { $0.hasPrefix("source=") }.map { String($0.dropFirst(7)) }
  }

  /// A key without the `bytes=` and `mtime=` of its source: what still identifies a thumbnail
  /// once its source file is gone (a cache entry removed after its thumbnails were made, whose name
  /// alone fixes its content).
  /// - Parameter key: A stamp's key.
  /// - Returns: The key with those two fields left out.
  public static func keyIgnoringSourceState(_ key: String) -> String {
    key.split(separator: " ").filter { !$0.hasPrefix("bytes=") && !$0.hasPrefix("mtime=") }.joined(separator: " ")
  }

  /// The source size a key records (`bytes=`), if it is a number.
  /// - Parameter key: A stamp's key.
  /// - Returns: The size in bytes of the source the thumbnail was made from.
  public static func sourceBytes(inKey key: String) -> Int? {
    key.split(separator: " ").first { $0.hasPrefix("bytes=") }.flatMap { Int($0.dropFirst(6)) }
  }

  /// Reads a stamp back from its text.
  /// - Parameter text: A stamp's text.
  /// - Returns: `nil` when the text is not a stamp of this version.
  public init?(text: String) {
    guard text.hasPrefix(Self.tag + " "), let space = text.lastIndex(of: " ") else { return nil }
    let last = text[text.index(after: space)...]
    guard last.hasPrefix("out=") else { return nil }
    let size = last.dropFirst(4).split(separator: "x")
    guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), width > 0,
      height > 0
    else {
      return nil
    }
    self.init(key: String(text[..<space]), width: width, height: height)
  }

  /// The key for a source file and the options applied to it.
  /// - Parameters:
  ///   - sourceName: The original's file name (without directory).
  ///   - sourceBytes: The original's size in bytes.
  ///   - sourceModified: The original's modification time as `seconds.nanoseconds`.
  ///   - options: The thumbnail options.
  ///   - format: The resolved output format's encoder.
  /// - Returns: The key text.
  public static func key(
    sourceName: String, sourceBytes: Int, sourceModified: String, options: ThumbnailOptions,
    format: any ImageEncoding
  ) -> String {
    let formatText = format.settingsLabel
    // Spaces and control characters would make the line ambiguous to read (not to compare).
    let name = String(
      sourceName.unicodeScalars.map {
        $0.value <= 0x20 || $0 == "%" ? "%" + String($0.value, radix: 16) : String($0)
      }.joined())
    return "\(tag) source=\(name) bytes=\(sourceBytes) mtime=\(sourceModified)"
      + " size=\(options.size) fit=\(options.fit.rawValue)"
      + " upscale=\(options.allowsUpscaling ? 1 : 0) rotate=\(options.appliesOrientation ? 1 : 0)"
      + " filter=\(options.filter.rawValue) format=\(formatText) color=\(options.colorSpace.rawValue)"
      + (options.keepsExif ? " meta=exif" : "")
      + (options.background == .white ? "" : " bg=\(options.background)")
      + (options.fit == .cover && options.cropAnchor != .centre ? " crop=\(options.cropAnchor.rawValue)" : "")
  }
}
