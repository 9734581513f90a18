/// Small GIF files made in tests: LZW written with 9-bit literal codes and a clear code every 254
/// (a valid stream any decoder reads, no compression), a 256-colour global palette (entry i is
/// (i, 255 - i, i / 2)), frames with an optional transparent index and interlacing.
enum GIFMaker {
  struct Frame {
    var left = 0
    var top = 0
    var width: Int
    var height: Int
    /// Palette indices in stored order (an interlaced frame's rows in pass order).
    var pixels: [UInt8]
    var interlaced = false
    var transparent: UInt8? = nil
  }

  static func color(_ index: Int) -> [UInt8] { [UInt8(index), UInt8(255 - index), UInt8(index / 2)] }

  static func file(width: Int, height: Int, frames: [Frame], trailer: Bool = true) -> [UInt8] {
    var bytes = Array("GIF89a".utf8) + le(width) + le(height) + [0xF7, 0, 0]
    for index in 0..<256 { bytes += color(index) }
    for frame in frames {
      if let transparent = frame.transparent { bytes += [0x21, 0xF9, 4, 1, 0, 0, transparent, 0] }
      bytes += [0x2C] + le(frame.left) + le(frame.top) + le(frame.width) + le(frame.height)
      bytes += [frame.interlaced ? 0x40 : 0]
      bytes += lzw(frame.pixels)
    }
    if trailer { bytes.append(0x3B) }
    return bytes
  }

  static func le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }

  static func lzw(_ indices: [UInt8]) -> [UInt8] {
    var data: [UInt8] = []
    var pending: UInt32 = 0
    var bits = 0
    func put(_ code: UInt32) {
      pending |= code << UInt32(bits)
      bits += 9
      while bits >= 8 {
        data.append(UInt8(pending & 0xFF))
        pending >>= 8
        bits -= 8
      }
    }
    put(256)
    for (position, index) in indices.enumerated() {
      if position > 0 && position % 254 == 0 { put(256) }
      put(UInt32(index))
    }
    put(257)
    if bits > 0 { data.append(UInt8(pending & 0xFF)) }
    var out: [UInt8] = [8]
    var offset = 0
    while offset < data.count {
      let count = min(255, data.count - offset)
      out.append(UInt8(count))
      out += data[offset..<offset + count]
      offset += count
    }
    out.append(0)
    return out
  }
}
