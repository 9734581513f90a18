/// A frame as SOF declares it, with libjpeg's arithmetic for the block grid of each component.
struct Frame {
  struct Component {
    var id: UInt8
    var h: Int
    var v: Int
    var quantTable: Int
  }

  var width: Int
  var height: Int
  var components: [Component]
  var progressive: Bool
  /// SOF1 instead of SOF0 for a sequential frame.
  var extended: Bool

  var hMax: Int { components.map(\.h).max()! }
  var vMax: Int { components.map(\.v).max()! }
  var mcusWide: Int { (width + 8 * hMax - 1) / (8 * hMax) }
  var mcusHigh: Int { (height + 8 * vMax - 1) / (8 * vMax) }

  /// Blocks a one-component scan covers (libjpeg's `width_in_blocks`, `height_in_blocks`).
  func blocksWide(_ c: Int) -> Int { (width * components[c].h + 8 * hMax - 1) / (8 * hMax) }
  func blocksHigh(_ c: Int) -> Int { (height * components[c].v + 8 * vMax - 1) / (8 * vMax) }
  /// Blocks an interleaved scan covers, the MCUs' padding included: the stride of the memory.
  func paddedWide(_ c: Int) -> Int { mcusWide * components[c].h }
  func paddedHigh(_ c: Int) -> Int { mcusHigh * components[c].v }

  /// Blocks in one MCU of an interleaved scan of these components.
  func blocksPerMCU(_ scanned: [Int]) -> Int {
    scanned.count == 1 ? 1 : scanned.reduce(0) { $0 + components[$1].h * components[$1].v }
  }
}

/// One scan: its components in SOS order, its band and successive approximation, its tables.
struct Scan {
  var components: [Int]
  var ss = 0
  var se = 63
  var ah = 0
  var al = 0
  /// Huffman slots (0-3) of each scanned component.
  var dcSlots: [Int]
  var acSlots: [Int]
  var restartInterval = 0
}
