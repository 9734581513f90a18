/// A WebP file's RIFF chunks, walked header by header through a reader (a file's positional reads,
/// or bytes in memory): the comment (`ICMT`) and ICC profile (`ICCP`) chunks, and whether the file
/// is as long as its RIFF header says. At most 256 chunks are walked; a comment over 64 KiB and a
/// profile over the standard chunk limit are not read.
struct WebPChunks {
  /// The file's size in bytes.
  let size: Int
  /// Reads `count` bytes at `offset` (fewer at the end), or nil.
  let read: (_ offset: Int, _ count: Int) -> [UInt8]?

  /// `RIFF` then a size then `WEBP`.
  static func isWebP(_ head: some Collection<UInt8>) -> Bool {
    let bytes = Array(head.prefix(12))
    return bytes.count == 12 && bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8)
  }

  func metadata(readsColor: Bool) -> ImageMetadata {
    var texts: [ImageMetadata.Text] = []
    var profile: [UInt8]?
    var complete = false
    if let header = read(0, 12), header.count == 12 {
      let declared = Int(Self.littleEndian(header[4..<8]))
      complete = declared + 8 == size && declared % 2 == 0
      var at = 12
      var walked = 0
      while at + 8 <= min(size, declared + 8), walked < 256, let chunk = read(at, 8), chunk.count == 8 {
        walked += 1
        let length = Int(Self.littleEndian(chunk[4..<8]))
        let type = String(decoding: chunk[0..<4], as: UTF8.self)
        if type == "ICMT" && length <= 64 << 10, let data = read(at + 8, length), data.count == length {
          let text = data.prefix { $0 != 0 }
          texts.append(ImageMetadata.Text(keyword: ImageMetadata.commentKeyword, text: String(decoding: text, as: UTF8.self)))
        } else if type == "ICCP" && readsColor && length <= DecodeLimits.standard.maxChunkBytes,
          let data = read(at + 8, length), data.count == length
        {
          profile = data
        }
        at += 8 + length + (length & 1)
      }
    }
    var colorSpace: ColorSpace? = nil
    if readsColor {
      colorSpace =
        profile.map { ColorSpace(profile: $0, model: .rgb, maxProfileBytes: DecodeLimits.standard.maxChunkBytes) }
        ?? .sRGB
    }
    return ImageMetadata(format: .webp, texts: texts, isComplete: complete, colorSpace: colorSpace)
  }

  static func littleEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    bytes.reversed().reduce(0) { $0 << 8 | UInt32($1) }
  }
}
