/// How the values of one image are drawn: their ranges and how sparse they are.
struct ValueStyle {
  /// Largest DC value of a first scan (before the point transform is undone).
  var dcRange: Int
  /// Percent of the band's coefficients up to a block's last one that are nonzero.
  var acDensity: Int
  /// Largest magnitude of an AC value, as a bit length (1-10).
  var acBits: Int
  /// Percent of zero coefficients a refinement makes newly nonzero.
  var newlyNonzero: Int
  /// Percent of blocks after which a pending end-of-band run is sent early (a legal split).
  var earlyEndOfBands: Int
  /// Some AC values of a first scan with Al >= 2 are multiples of 2^(16 - Al): libjpeg keeps
  /// `value << Al` in 16 bits, so it stores them as zero. (Only these are large: other large values
  /// would take the image out of the range where the engine's inverse DCT decodes at all.)
  var wrapsToZero: Bool
}

/// Turns a scan into entropy events (T.81 Annex F for sequential scans, G.1.2 for progressive
/// ones), drawing each block's values as it goes. It keeps the coefficients as libjpeg's decoder
/// holds them after each scan (`memory`, zigzag order, int16 arithmetic), because a refinement is
/// coded against what the decoder has: a coefficient is "already nonzero" when its stored value is,
/// whatever the earlier scans meant.
final class ScanCoder {
  let frame: Frame
  let style: ValueStyle
  var memory: [[Int32]]
  private var events: [EntropyEvent] = []
  private var predictions: [Int] = []
  private var endOfBandRun = 0
  private var pendingCorrections: [Int] = []  // correction bits of the blocks in `endOfBandRun`

  init(frame: Frame, style: ValueStyle) {
    self.frame = frame
    self.style = style
    memory = frame.components.indices.map {
      [Int32](repeating: 0, count: frame.paddedWide($0) * frame.paddedHigh($0) * 64)
    }
  }

  /// The scan's events, its blocks in MCU order, restart markers every `restartInterval` MCUs.
  func encode(_ scan: Scan, draw: inout Draw) -> [EntropyEvent] {
    events = []
    predictions = [Int](repeating: 0, count: frame.components.count)
    endOfBandRun = 0
    pendingCorrections = []
    var mcu = 0
    func block(_ position: Int, _ c: Int, _ x: Int, _ y: Int) {
      let base = (y * frame.paddedWide(c) + x) * 64
      if !frame.progressive {
        sequential(c, base, position, scan, &draw)
      } else if scan.ss == 0 {
        scan.ah == 0 ? dcFirst(c, base, position, scan, &draw) : dcRefine(c, base, scan, &draw)
      } else {
        scan.ah == 0 ? acFirst(c, base, position, scan, &draw) : acRefine(c, base, position, scan, &draw)
      }
    }
    func startMCU() {
      if scan.restartInterval > 0 && mcu > 0 && mcu % scan.restartInterval == 0 {
        sendEndOfBands()
        events.append(.restart)
        for c in predictions.indices { predictions[c] = 0 }
      }
      mcu += 1
    }
    if scan.components.count == 1 {
      let c = scan.components[0]
      for y in 0..<frame.blocksHigh(c) {
        for x in 0..<frame.blocksWide(c) {
          startMCU()
          block(0, c, x, y)
        }
      }
    } else {
      for my in 0..<frame.mcusHigh {
        for mx in 0..<frame.mcusWide {
          startMCU()
          for (position, c) in scan.components.enumerated() {
            let component = frame.components[c]
            for yy in 0..<component.v {
              for xx in 0..<component.h { block(position, c, mx * component.h + xx, my * component.v + yy) }
            }
          }
        }
      }
    }
    sendEndOfBands()
    return events
  }

  // MARK: - values

  private static func bitLength(_ magnitude: Int) -> Int {
    var n = 0
    var rest = magnitude
    while rest > 0 {
      n += 1
      rest >>= 1
    }
    return n
  }

  /// A value's size category and its extra bits (negative values as value - 1, T.81 F.1.2.1).
  private func send(_ value: Int, table: Int, runBefore run: Int = 0) {
    let size = ScanCoder.bitLength(abs(value))
    events.append(.symbol(table: table, value: run << 4 | size))
    if size > 0 { events.append(.bits(value: value >= 0 ? value : value + (1 << size) - 1, count: size)) }
  }

  /// What libjpeg stores for a value: its 16-bit `JCOEF`.
  private static func stored(_ value: Int) -> Int32 { Int32(Int16(truncatingIfNeeded: value)) }

  private func dcValue(_ al: Int, _ draw: inout Draw) -> Int {
    let range = min(style.dcRange, 16383 >> al)
    return draw.noise(2 * range + 1) - range
  }

  /// A block's band values: zero after a drawn last position, sparse before it.
  private func acValues(_ scan: Scan, _ draw: inout Draw) -> [Int] {
    var values = [Int](repeating: 0, count: 64)
    let largest = max(1, min((1 << style.acBits) - 1, 32767 >> scan.al))
    let span = scan.se - scan.ss + 1
    let last = scan.ss + draw.noise(span + 1) - 1  // ss - 1: nothing in this band
    if last < scan.ss { return values }
    for k in scan.ss...last where k == last || draw.noise(100) < style.acDensity {
      var magnitude = 1 + draw.noise(min(largest, 1 << draw.noise(style.acBits + 1)))
      if style.wrapsToZero && scan.al >= 2 && draw.noise(2) == 0 {
        // A multiple of 2^(16 - Al): libjpeg's 16-bit store of `value << Al` is zero.
        magnitude = (1 + draw.noise(max(1, 32767 >> (16 - scan.al)))) << (16 - scan.al)
      }
      values[k] = draw.noise(2) == 0 ? magnitude : -magnitude
    }
    return values
  }

  // MARK: - sequential

  private func sequential(_ c: Int, _ base: Int, _ position: Int, _ scan: Scan, _ draw: inout Draw) {
    let dc = dcValue(0, &draw)
    send(dc - predictions[c], table: scan.dcSlots[position])
    predictions[c] = dc
    let values = acValues(Scan(components: [c], ss: 1, se: 63, dcSlots: [], acSlots: []), &draw)
    let table = 4 + scan.acSlots[position]
    var run = 0
    for k in 1...63 {
      if values[k] == 0 {
        run += 1
        continue
      }
      while run > 15 {
        events.append(.symbol(table: table, value: 0xF0))
        run -= 16
      }
      send(values[k], table: table, runBefore: run)
      run = 0
    }
    if run > 0 { events.append(.symbol(table: table, value: 0x00)) }
  }

  // MARK: - progressive DC (G.1.2.1)

  private func dcFirst(_ c: Int, _ base: Int, _ position: Int, _ scan: Scan, _ draw: inout Draw) {
    let dc = dcValue(scan.al, &draw)
    send(dc - predictions[c], table: scan.dcSlots[position])
    predictions[c] = dc
    memory[c][base] = ScanCoder.stored(dc << scan.al)
  }

  private func dcRefine(_ c: Int, _ base: Int, _ scan: Scan, _ draw: inout Draw) {
    let bit = draw.noise(2)
    events.append(.bits(value: bit, count: 1))
    if bit == 1 { memory[c][base] |= Int32(1 << scan.al) }
  }

  // MARK: - progressive AC (G.1.2.2, G.1.2.3)

  /// Sends the pending end-of-band run (EOBn: n, then the run's low n bits), then the correction
  /// bits of a refinement's blocks in the run.
  private func sendEndOfBands() {
    guard endOfBandRun > 0 else { return }
    let n = ScanCoder.bitLength(endOfBandRun) - 1
    events.append(.symbol(table: currentACTable, value: n << 4))
    if n > 0 { events.append(.bits(value: endOfBandRun - (1 << n), count: n)) }
    for bit in pendingCorrections { events.append(.bits(value: bit, count: 1)) }
    endOfBandRun = 0
    pendingCorrections = []
  }

  private var currentACTable = 4

  private func endBlockInRun(_ draw: inout Draw) {
    endOfBandRun += 1
    if endOfBandRun == 0x7FFF || pendingCorrections.count > 900 || draw.noise(100) < style.earlyEndOfBands {
      sendEndOfBands()
    }
  }

  private func acFirst(_ c: Int, _ base: Int, _ position: Int, _ scan: Scan, _ draw: inout Draw) {
    currentACTable = 4 + scan.acSlots[position]
    let values = acValues(scan, &draw)
    var run = 0
    for k in scan.ss...scan.se {
      if values[k] == 0 {
        run += 1
        continue
      }
      sendEndOfBands()
      while run > 15 {
        events.append(.symbol(table: currentACTable, value: 0xF0))
        run -= 16
      }
      send(values[k], table: currentACTable, runBefore: run)
      run = 0
      memory[c][base + k] = ScanCoder.stored(values[k] << scan.al)  // libjpeg stores only the nonzero ones
    }
    if run > 0 { endBlockInRun(&draw) }
  }

  private func acRefine(_ c: Int, _ base: Int, _ position: Int, _ scan: Scan, _ draw: inout Draw) {
    currentACTable = 4 + scan.acSlots[position]
    let bit = Int32(1 << scan.al)
    // Which zero coefficients become nonzero (and their signs), and the last of them.
    var newly = [Int](repeating: 0, count: 64)
    var last = -1
    for k in scan.ss...scan.se where memory[c][base + k] == 0 && draw.noise(100) < style.newlyNonzero {
      newly[k] = draw.noise(2) == 0 ? 1 : -1
      last = k
    }
    var run = 0
    var corrections: [Int] = []
    for k in scan.ss...scan.se {
      let stored = memory[c][base + k]
      if stored == 0 && newly[k] == 0 {
        run += 1
        continue
      }
      // Zero runs of 16 before a new coefficient are ZRLs, carrying the corrections passed;
      // after the last new coefficient the end of band covers them.
      while run > 15 && k <= last {
        sendEndOfBands()
        events.append(.symbol(table: currentACTable, value: 0xF0))
        run -= 16
        for bit in corrections { events.append(.bits(value: bit, count: 1)) }
        corrections = []
      }
      if stored != 0 {
        // A correction bit: libjpeg adds the bit away from zero when it is not set yet.
        let correction = draw.noise(2)
        if correction == 1 && stored & bit == 0 {
          memory[c][base + k] = ScanCoder.stored(Int(stored >= 0 ? stored + bit : stored - bit))
        }
        corrections.append(correction)
        continue
      }
      sendEndOfBands()
      events.append(.symbol(table: currentACTable, value: run << 4 | 1))
      events.append(.bits(value: newly[k] > 0 ? 1 : 0, count: 1))
      for bit in corrections { events.append(.bits(value: bit, count: 1)) }
      corrections = []
      run = 0
      memory[c][base + k] = newly[k] > 0 ? bit : -bit
    }
    if run > 0 || !corrections.isEmpty {
      pendingCorrections += corrections
      endBlockInRun(&draw)
    }
  }
}
