/// A few small damages to a generated file, chosen by the input: a byte changed, the file cut,
/// a byte put in, a run of bytes taken out. Positions are drawn over the whole file, so they fall
/// in headers, tables and entropy-coded data alike.
enum Mutation {
  static func apply(_ bytes: inout [UInt8], _ draw: inout Draw) {
    let count = draw.chance(60) ? 0 : 1 + draw.below(3)
    for _ in 0..<count where bytes.count > 2 {
      // Mostly past the SOI: a damaged SOI only tests that both refuse a file that is not a JPEG.
      let at = 2 + draw.below(bytes.count - 2)
      switch draw.below(4) {
      case 0: bytes[at] ^= UInt8(1 << draw.below(8))
      case 1: bytes[at] = UInt8(draw.byte())
      case 2: bytes.insert(UInt8([0x00, 0xFF, draw.byte()][draw.below(3)]), at: at)
      default:
        if draw.chance(50) {
          bytes.removeSubrange(at...)
        } else {
          bytes.removeSubrange(at..<min(bytes.count, at + 1 + draw.below(8)))
        }
      }
    }
  }
}
