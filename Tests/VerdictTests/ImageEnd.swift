/// Where the image a library decodes ends in a file: after IEND's CRC (PNG), after the first EOI
/// marker outside a segment and outside entropy-coded data (JPEG). What follows is the trailing data
/// the decoding policy says is never read.
enum ImageEnd {
  /// The offset just past the end of the image, or nil when the structure does not lead to one.
  static func offset(in bytes: [UInt8]) -> Int? {
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return pngEnd(bytes) }
    if bytes.starts(with: [0xFF, 0xD8]) { return jpegEnd(bytes) }
    return nil
  }

  static func pngEnd(_ bytes: [UInt8]) -> Int? {
    var position = 8
    while position + 12 <= bytes.count {
      let length = bytes[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
      let type = String(decoding: bytes[position + 4..<position + 8], as: UTF8.self)
      position += 12 + length
      if type == "IEND" { return position <= bytes.count ? position : nil }
    }
    return nil
  }

  static func jpegEnd(_ bytes: [UInt8]) -> Int? {
    var position = 2
    while position + 1 < bytes.count {
      guard bytes[position] == 0xFF else { return nil }
      let marker = bytes[position + 1]
      if marker == 0xFF {  // fill byte before a marker
        position += 1
        continue
      }
      position += 2
      if marker == 0xD9 { return position }
      if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
      guard position + 1 < bytes.count else { return nil }
      position += Int(bytes[position]) << 8 | Int(bytes[position + 1])
      guard marker == 0xDA else { continue }
      // Entropy-coded data: FF 00 is a stuffed FF, FF D0...D7 a restart; anything else a marker.
      while position + 1 < bytes.count {
        if bytes[position] == 0xFF && bytes[position + 1] != 0 && !(0xD0...0xD7).contains(bytes[position + 1]) { break }
        position += 1
      }
    }
    return nil
  }
}
