/// A whole JPEG file from the input: the frame, its quantisation tables, the scan script, each
/// scan's Huffman tables built from its symbols (or an earlier table kept when it has every code
/// the scan needs), restart intervals and table redefinitions between scans.
struct GeneratedJPEG {
  var bytes: [UInt8] = []
  var frame: Frame
  var scans: [Scan]

  init(_ draw: inout Draw) {
    frame = GeneratedJPEG.frame(&draw)
    let style = ValueStyle(
      dcRange: [15, 100, 500, 1023][draw.below(4)], acDensity: [5, 20, 50, 90][draw.below(4)],
      acBits: 1 + draw.below(10), newlyNonzero: [2, 10, 40][draw.below(3)],
      earlyEndOfBands: draw.chance(20) ? 10 : 0, wrapsToZero: draw.chance(40))
    scans = ScanScript(frame: frame, draw: &draw).scans
    write(style, &draw)
  }

  private static func frame(_ draw: inout Draw) -> Frame {
    let progressive = draw.chance(65)
    let grey = draw.chance(25)
    func side() -> Int { draw.chance(25) ? 1 + draw.below(300) : 1 + draw.below(40) }
    let width = side()
    let height = side()
    let layouts: [[(Int, Int)]] = [
      [(1, 1), (1, 1), (1, 1)], [(2, 2), (1, 1), (1, 1)], [(2, 1), (1, 1), (1, 1)], [(1, 2), (1, 1), (1, 1)],
      [(1, 1), (2, 1), (2, 1)], [(1, 1), (1, 2), (1, 2)], [(4, 1), (1, 1), (1, 1)], [(2, 2), (2, 1), (1, 2)],
    ]
    var sampling: [(Int, Int)]
    if grey {
      sampling = [draw.chance(85) ? (1, 1) : (1 + draw.below(4), 1 + draw.below(4))]
    } else if draw.chance(70) {
      sampling = layouts[draw.below(layouts.count)]
    } else {
      sampling = (0..<3).map { _ in (1 + draw.below(4), 1 + draw.below(4)) }
      // libjpeg-turbo upsamples only by whole factors ("Fractional sampling not implemented yet"):
      // mostly each factor divides the largest.
      if draw.chance(85) {
        let hMax = sampling.map(\.0).max()!
        let vMax = sampling.map(\.1).max()!
        sampling = sampling.map { (hMax % $0.0 == 0 ? $0.0 : 1, vMax % $0.1 == 0 ? $0.1 : 1) }
      }
    }
    if Avoid.fromEnvironment.finerChroma && sampling.count == 3 {
      sampling = sampling.enumerated().map { $0 == 0 ? $1 : (min($1.0, sampling[0].0), min($1.1, sampling[0].1)) }
    }
    var ids: [UInt8] = grey ? [1] : [1, 2, 3]
    if draw.chance(10) { ids = grey ? [UInt8(draw.byte())] : [0, 1, 2] }
    let tables = 1 + draw.below(4)
    let components = sampling.enumerated().map { index, hv in
      Frame.Component(
        id: ids[index], h: hv.0, v: hv.1,
        quantTable: draw.chance(80) ? min(index, 1) % tables : draw.below(tables))
    }
    return Frame(
      width: width, height: height, components: components, progressive: progressive, extended: draw.chance(20))
  }

  private mutating func segment(_ marker: UInt8, _ payload: [UInt8]) {
    let length = payload.count + 2
    bytes += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
  }

  private mutating func quantTables(_ slots: [Int], _ draw: inout Draw) {
    var payload: [UInt8] = []
    for slot in slots {
      let wide = draw.chance(15)
      // Small steps keep the engine inside its inverse DCT's range (where it decodes at all).
      let largest = [2, 8, 30, 255][draw.below(4)]
      payload.append(UInt8((wide ? 0x10 : 0) | slot))
      for _ in 0..<64 {
        let step = 1 + draw.noise(largest)
        payload += wide ? [UInt8(step >> 8), UInt8(step & 0xFF)] : [UInt8(step)]
      }
    }
    if draw.chance(50) {
      segment(0xDB, payload)
    } else {
      // One table per segment.
      var at = 0
      while at < payload.count {
        let size = payload[at] & 0x10 != 0 ? 129 : 65
        segment(0xDB, Array(payload[at..<at + size]))
        at += size
      }
    }
  }

  private mutating func write(_ style: ValueStyle, _ draw: inout Draw) {
    bytes = [0xFF, 0xD8]
    if draw.chance(60) { segment(0xE0, Array("JFIF".utf8) + [0, 1, 2, 0, 0, 1, 0, 1, 0, 0]) }
    if draw.chance(10) { segment(0xFE, Array("structure".utf8)) }
    let tableCount = (frame.components.map(\.quantTable).max() ?? 0) + 1
    quantTables(Array(0..<tableCount), &draw)
    var sof: [UInt8] = [8, UInt8(frame.height >> 8), UInt8(frame.height & 0xFF)]
    sof += [UInt8(frame.width >> 8), UInt8(frame.width & 0xFF), UInt8(frame.components.count)]
    for component in frame.components {
      sof += [component.id, UInt8(component.h << 4 | component.v), UInt8(component.quantTable)]
    }
    segment(frame.progressive ? 0xC2 : frame.extended ? 0xC1 : 0xC0, sof)
    let coder = ScanCoder(frame: frame, style: style)
    var tables = [HuffmanTable?](repeating: nil, count: 8)
    var interval = draw.chance(30) ? 1 + draw.below(draw.chance(50) ? 4 : 40) : 0
    if interval > 0 || draw.chance(10) { segment(0xDD, [UInt8(interval >> 8), UInt8(interval & 0xFF)]) }
    for index in scans.indices {
      // Between scans: a quantisation table redefined (libjpeg has latched a scanned
      // component's table), a new restart interval.
      if index > 0 && draw.chance(15) { quantTables([draw.below(tableCount)], &draw) }
      if index > 0 && draw.chance(15) {
        interval = draw.chance(40) ? 0 : 1 + draw.below(16)
        segment(0xDD, [UInt8(interval >> 8), UInt8(interval & 0xFF)])
      }
      scans[index].restartInterval = interval
      let scan = scans[index]
      let events = coder.encode(scan, draw: &draw)
      var frequencies = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 8)
      for case .symbol(let table, let value) in events { frequencies[table][value] += 1 }
      var dht: [UInt8] = []
      for table in 0..<8 where frequencies[table].contains(where: { $0 > 0 }) {
        if let kept = tables[table], kept.covers(frequencies[table]), draw.chance(30) { continue }
        let built = HuffmanTable(frequencies: frequencies[table])
        tables[table] = built
        let definition = [UInt8((table >= 4 ? 0x10 : 0) | table % 4)] + built.counts.map { UInt8($0) } + built.symbols
        if draw.chance(30) { segment(0xC4, definition) } else { dht += definition }
      }
      if !dht.isEmpty { segment(0xC4, dht) }
      var sos: [UInt8] = [UInt8(scan.components.count)]
      for (position, c) in scan.components.enumerated() {
        sos += [frame.components[c].id, UInt8(scan.dcSlots[position] << 4 | scan.acSlots[position])]
      }
      sos += [UInt8(scan.ss), UInt8(scan.se), UInt8(scan.ah << 4 | scan.al)]
      segment(0xDA, sos)
      bytes += EntropyWriter.write(events, tables: tables)
    }
    bytes += [0xFF, 0xD9]
  }
}
