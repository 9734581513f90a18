/// What a scan's entropy-coded data is made of, recorded first so that the Huffman tables can be
/// built from the symbols the scan actually sends, then written with them.
enum EntropyEvent {
  /// A Huffman symbol of a table: `table` is the slot (0-3) for DC, 4 + slot for AC.
  case symbol(table: Int, value: Int)
  /// Raw bits, most significant first.
  case bits(value: Int, count: Int)
  /// The end of a restart interval: the bits padded with ones, then RSTn.
  case restart
}

/// Entropy-coded bytes: bits packed most significant first, every 0xFF followed by a stuffed 0x00.
struct EntropyWriter {
  private(set) var bytes: [UInt8] = []
  private var buffer = 0
  private var filled = 0
  private var restarts = 0

  mutating func put(_ value: Int, _ count: Int) {
    var count = count
    while count > 0 {
      count -= 1
      buffer = buffer << 1 | (value >> count) & 1
      filled += 1
      if filled == 8 {
        bytes.append(UInt8(buffer))
        if buffer == 0xFF { bytes.append(0) }
        buffer = 0
        filled = 0
      }
    }
  }

  /// Pads the last byte with one bits (T.81 F.1.2.3).
  mutating func pad() {
    if filled > 0 { put(0x7F, 8 - filled) }
  }

  mutating func restart() {
    pad()
    bytes += [0xFF, UInt8(0xD0 + restarts % 8)]
    restarts += 1
  }

  /// The events written with `tables` (indexed as `EntropyEvent.symbol`'s table).
  static func write(_ events: [EntropyEvent], tables: [HuffmanTable?]) -> [UInt8] {
    var writer = EntropyWriter()
    for event in events {
      switch event {
      case .symbol(let table, let value):
        let huffman = tables[table]!
        writer.put(Int(huffman.code[value]), Int(huffman.length[value]))
      case .bits(let value, let count): writer.put(value, count)
      case .restart: writer.restart()
      }
    }
    writer.pad()
    return writer.bytes
  }
}
