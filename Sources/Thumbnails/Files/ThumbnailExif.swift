import ImageCodecs
import SystemFiles

/// The source's Exif block carried into its thumbnail (``ThumbnailOptions/keepsExif``,
/// `imgfetch --keep-metadata`): read from the source file's container (a JPEG's `APP1 Exif`
/// segment, a PNG's `eXIf` chunk, a WebP's `EXIF` chunk), its orientation tag set to 1 when the
/// thumbnail's pixels were turned upright, and spliced into the encoded thumbnail after the
/// segments the encoder wrote (so the stamp stays in the file's first bytes): an `APP1` segment
/// before a JPEG's tables, an `eXIf` chunk before a PNG's `IDAT`, an `EXIF` chunk at the end of
/// a WebP (its `VP8X` flag set). Only the container is read and written; the pixels are not
/// touched. An Exif block a JPEG segment cannot hold (over 65,527 bytes) is not kept.
enum ThumbnailExif {
  /// The Exif (TIFF) bytes of an image file, or `nil` when it has none.
  static func read(fromFileAt path: String) -> [UInt8]? {
    guard let file = try? ReadableFile(path: path), let head = try? file.read(count: 12, at: 0), head.count >= 12
    else { return nil }
    if head[0] == 0xFF && head[1] == 0xD8 { return jpeg(file) }
    if head[0...7].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return png(file) }
    if head[0...3].elementsEqual(Array("RIFF".utf8)) && head[8...11].elementsEqual(Array("WEBP".utf8)) {
      return webp(file)
    }
    return nil
  }

  private static let exifPrefix: [UInt8] = Array("Exif".utf8) + [0, 0]

  private static func jpeg(_ file: ReadableFile) -> [UInt8]? {
    var offset = 2
    while let marker = try? file.read(count: 4, at: offset), marker.count == 4, marker[0] == 0xFF {
      let code = marker[1]
      if code == 0xDA || code == 0xD9 { return nil }  // the scan: no more metadata ahead
      let length = Int(marker[2]) << 8 | Int(marker[3])
      if code == 0xE1, length > 8, let body = try? file.read(count: length - 2, at: offset + 4),
        body.count == length - 2, body.starts(with: exifPrefix)
      {
        return Array(body.dropFirst(exifPrefix.count))
      }
      offset += 2 + length
    }
    return nil
  }

  private static func png(_ file: ReadableFile) -> [UInt8]? {
    var offset = 8
    while let head = try? file.read(count: 8, at: offset), head.count == 8 {
      let length = Int(bigEndian32(head, 0))
      let type = String(decoding: head[4...7], as: UTF8.self)
      if type == "eXIf" { return try? file.read(count: length, at: offset + 8) }
      if type == "IEND" || length > 1 << 30 { return nil }
      offset += 12 + length
    }
    return nil
  }

  private static func webp(_ file: ReadableFile) -> [UInt8]? {
    var offset = 12
    while let head = try? file.read(count: 8, at: offset), head.count == 8 {
      let length = Int(littleEndian32(head, 4))
      if String(decoding: head[0...3], as: UTF8.self) == "EXIF" {
        guard let body = try? file.read(count: length, at: offset + 8) else { return nil }
        return body.starts(with: exifPrefix) ? Array(body.dropFirst(exifPrefix.count)) : body
      }
      if length > 1 << 30 { return nil }
      offset += 8 + length + (length & 1)
    }
    return nil
  }

  /// The Exif block with its IFD0 orientation tag (0x0112) set to 1 (upright); unchanged when it
  /// has none or cannot be read as TIFF.
  static func upright(_ tiff: [UInt8]) -> [UInt8] {
    guard tiff.count >= 8 else { return tiff }
    let little = tiff[0] == 0x49 && tiff[1] == 0x49
    guard little || (tiff[0] == 0x4D && tiff[1] == 0x4D) else { return tiff }
    let read16 = { (at: Int) -> Int in
      little ? Int(tiff[at]) | Int(tiff[at + 1]) << 8 : Int(tiff[at]) << 8 | Int(tiff[at + 1])
    }
    let read32 = { (at: Int) -> Int in
      little ? Int(littleEndian32(tiff, at)) : Int(bigEndian32(tiff, at))
    }
    let ifd = read32(4)
    guard ifd >= 8, ifd + 2 <= tiff.count else { return tiff }
    var result = tiff
    for index in 0..<read16(ifd) {
      let entry = ifd + 2 + index * 12
      guard entry + 12 <= tiff.count else { break }
      if read16(entry) == 0x0112 && read16(entry + 2) == 3 {
        result[entry + 8] = little ? 1 : 0
        result[entry + 9] = little ? 0 : 1
      }
    }
    return result
  }

  /// The encoded thumbnail with the Exif block spliced in (see the type's documentation).
  static func insert(_ tiff: [UInt8], into bytes: [UInt8], format: ImageFormat) -> [UInt8] {
    switch format {
    case .jpeg:
      let payload = exifPrefix + tiff
      guard payload.count + 2 <= 0xFFFF else { return bytes }
      // After SOI and the APPn/COM segments the encoder wrote (the stamp among them).
      var offset = 2
      while offset + 4 <= bytes.count, bytes[offset] == 0xFF,
        (0xE0...0xEF).contains(bytes[offset + 1]) || bytes[offset + 1] == 0xFE
      {
        offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
      }
      let length = payload.count + 2
      let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
      return Array(bytes[..<offset]) + segment + Array(bytes[offset...])
    case .png:
      var offset = 8
      while offset + 8 <= bytes.count {
        let length = Int(bigEndian32(bytes, offset))
        if String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self) == "IDAT" { break }
        offset += 12 + length
      }
      guard offset + 8 <= bytes.count else { return bytes }
      let body = Array("eXIf".utf8) + tiff
      let chunk = bigEndian(UInt32(tiff.count)) + body + bigEndian(crc32(body))
      return Array(bytes[..<offset]) + chunk + Array(bytes[offset...])
    case .webp:
      // The extended container (VP8X) is there when the encoder wrote a comment (the stamp).
      guard bytes.count >= 30, String(decoding: bytes[12..<16], as: UTF8.self) == "VP8X" else { return bytes }
      var result = bytes
      result[20] |= 0x08  // the EXIF flag
      result += Array("EXIF".utf8) + littleEndian(UInt32(tiff.count)) + tiff
      if tiff.count & 1 == 1 { result.append(0) }
      let riff = littleEndian(UInt32(result.count - 8))
      result.replaceSubrange(4..<8, with: riff)
      return result
    default:
      return bytes
    }
  }

  static func bigEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
  }

  static func littleEndian32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
    UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
  }

  static func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
  static func littleEndian(_ value: UInt32) -> [UInt8] {
    [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) }
  }

  /// PNG's CRC-32 (ISO 3309, reflected, polynomial 0xEDB88320).
  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
  }
}
