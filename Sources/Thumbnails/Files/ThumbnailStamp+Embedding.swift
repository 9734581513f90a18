import ImageCodecs
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

extension ThumbnailStamp {
  /// Inserts the stamp into an encoded file: a JPEG `COM` segment after SOI (and after the JFIF
  /// `APP0` segment when there is one), or a PNG `tEXt` chunk after `IHDR`.
  /// - Parameters:
  ///   - encoded: A complete JPEG or PNG file as the encoder produced it.
  ///   - format: Its format.
  /// - Returns: The file with the stamp; `encoded` unchanged if its start is not as expected.
  func embedded(in encoded: [UInt8], format: ImageFormat) -> [UInt8] {
    let payload = Array(text.utf8)
    switch format {
    case .jpeg:
      guard encoded.count >= 4, encoded[0] == 0xFF, encoded[1] == 0xD8, payload.count <= 65_000
      else {
        return encoded
      }
      var at = 2
      if encoded[2] == 0xFF, encoded[3] == 0xE0, encoded.count >= 6 {
        at = 4 + (Int(encoded[4]) << 8 | Int(encoded[5]))
      }
      guard at <= encoded.count else { return encoded }
      let length = payload.count + 2
      let segment = [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
      return Array(encoded[..<at]) + segment + encoded[at...]
    case .png:
      let afterHeader = 8 + 4 + 4 + 13 + 4
      guard encoded.count >= afterHeader, Array(encoded[12..<16]) == Array("IHDR".utf8) else {
        return encoded
      }
      let data = Array(Self.pngKeyword.utf8) + [0] + payload
      let typed = Array("tEXt".utf8) + data
      let chunk = Self.bigEndian(UInt32(data.count)) + typed + Self.bigEndian(CRC32.checksum(typed))
      return Array(encoded[..<afterHeader]) + chunk + encoded[afterHeader...]
    }
  }

  /// Reads the stamp of a thumbnail file from its first 4 KiB, without decoding anything. The file
  /// must also end as a complete file does (JPEG `EOI`, PNG `IEND`), so a file cut short (by a
  /// power failure after an unsynced write, say) is not taken for a thumbnail.
  /// - Parameter path: The thumbnail file.
  /// - Returns: The stamp, or `nil` when the file is missing, unreadable, incomplete or carries none.
  public static func read(fromFileAt path: String) -> ThumbnailStamp? {
    // A FIFO or device sitting at the thumbnail's path is not a thumbnail (and must not block).
    guard let file = try? ReadableFile(path: path), file.status.size >= 12,
      let head = try? file.read(count: 4096, at: 0), !head.isEmpty,
      let tail = try? file.read(count: 12, at: file.status.size - 12), tail.count == 12, endsCompletely(tail)
    else { return nil }
    return stampText(in: head[...]).flatMap { ThumbnailStamp(text: $0) }
  }

  /// Whether the last 12 bytes end a JPEG (`FF D9`) or a PNG (an empty `IEND` chunk with its CRC).
  static func endsCompletely(_ tail: [UInt8]) -> Bool {
    let iend: [UInt8] = [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    return tail == iend || (tail[10] == 0xFF && tail[11] == 0xD9)
  }

  /// The stamp text found in the start of a JPEG or PNG file.
  static func stampText(in head: ArraySlice<UInt8>) -> String? {
    let bytes = Array(head)
    if bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 {
      var at = 2
      while at + 4 <= bytes.count, bytes[at] == 0xFF {
        let marker = bytes[at + 1]
        if marker == 0xDA || marker == 0xD9 { return nil }  // image data or end: no stamp before it
        let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        guard length >= 2, at + 2 + length <= bytes.count else { return nil }
        if marker == 0xFE {
          let text = String(decoding: bytes[(at + 4)..<(at + 2 + length)], as: UTF8.self)
          if text.hasPrefix(tag) { return text }
        }
        at += 2 + length
      }
      return nil
    }
    guard bytes.count > 8, bytes[0] == 0x89, bytes[1] == 0x50 else { return nil }
    var at = 8
    let keyword = Array(pngKeyword.utf8) + [0]
    while at + 8 <= bytes.count {
      let length =
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8
        | Int(bytes[at + 3])
      let type = String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)
      if type == "IDAT" || type == "IEND" { return nil }
      let dataStart = at + 8
      guard length >= 0, dataStart + length + 4 <= bytes.count else { return nil }
      if type == "tEXt",
        Array(bytes[dataStart..<min(dataStart + keyword.count, bytes.count)]) == keyword
      {
        return String(
          decoding: bytes[(dataStart + keyword.count)..<(dataStart + length)], as: UTF8.self)
      }
      at = dataStart + length + 4
    }
    return nil
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] {
    [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
  }
}
