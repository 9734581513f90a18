/// Legal scan scripts. A sequential frame: every component once, in one interleaved scan or in
/// several scans in any order. A progressive frame: scans drawn one after another among those
/// libjpeg takes without `JWRN_BOGUS_PROGRESSION` given what was sent so far, T.81 G.1.1.1 as
/// libjpeg checks it: a DC first scan of components whose DC is unsent or complete, a DC refinement
/// of the next bit, an AC band (one component, after its DC) first sent or sent again once
/// complete, an AC refinement of the next bit of a band; Al up to 13. Then, when the input says so,
/// the rest of every coefficient down to bit 0, so that the engine has an image to give.
struct ScanScript {
  /// Per component, the lowest bit sent of its DC and of each AC coefficient (-1: none yet).
  private var dc: [Int]
  private var ac: [[Int]]
  private let frame: Frame
  private(set) var scans: [Scan] = []

  init(frame: Frame, draw: inout Draw) {
    self.frame = frame
    dc = [Int](repeating: -1, count: frame.components.count)
    ac = [[Int]](repeating: [Int](repeating: -1, count: 64), count: frame.components.count)
    if frame.progressive { progressive(&draw) } else { sequential(&draw) }
  }

  private func slots(_ count: Int, _ draw: inout Draw) -> [Int] {
    // Mostly the usual 0 for luma and 1 for chroma, sometimes any slot.
    (0..<count).map { draw.chance(25) ? draw.below(4) : ($0 == 0 ? 0 : 1) }
  }

  private func make(_ components: [Int], _ ss: Int, _ se: Int, _ ah: Int, _ al: Int, _ draw: inout Draw) -> Scan {
    Scan(
      components: components, ss: ss, se: se, ah: ah, al: al, dcSlots: slots(components.count, &draw),
      acSlots: slots(components.count, &draw))
  }

  /// `candidates` (in frame order) taken in the order the input picks, as many as one MCU holds.
  private func group(_ candidates: [Int], _ draw: inout Draw) -> [Int] {
    var chosen = candidates.filter { _ in draw.chance(70) }
    if chosen.isEmpty { chosen = [candidates[draw.below(candidates.count)]] }
    // libjpeg-turbo 2.1.5 takes an SOS's components only in frame order ("Invalid component ID"):
    // another order is rarely worth a file.
    if draw.chance(3) { chosen.shuffle(using: &draw) }
    while chosen.count > 1 && frame.blocksPerMCU(chosen) > 10 { chosen.removeLast() }
    return chosen
  }

  private mutating func sequential(_ draw: inout Draw) {
    var left = Array(frame.components.indices)
    if draw.chance(80) && frame.blocksPerMCU(left) <= 10 {
      if draw.chance(3) { left.shuffle(using: &draw) }
      scans.append(make(left, 0, 63, 0, 0, &draw))
      return
    }
    left.shuffle(using: &draw)
    while !left.isEmpty {
      let scanned = group(left.sorted(), &draw)
      left.removeAll { scanned.contains($0) }
      scans.append(make(scanned, 0, 63, 0, 0, &draw))
    }
  }

  private mutating func progressive(_ draw: inout Draw) {
    let steps = 1 + draw.below(draw.chance(80) ? 12 : 40)
    for _ in 0..<steps {
      if let scan = randomStep(&draw) { apply(scan) }
    }
    if scans.isEmpty || draw.chance(75) { complete(&draw) }
    // A complete band sent again, from a high bit, and completed again: what a repeated band does
    // to coefficients the decoder already holds.
    if !Avoid.fromEnvironment.resentBand && draw.chance(40) {
      let c = draw.below(frame.components.count)
      // Mostly low bands: the ones a 1/4 or 1/8 decode's pixels show.
      let ss = draw.chance(20) ? 0 : draw.chance(60) ? 1 + draw.below(5) : 1 + draw.below(63)
      if ss == 0 && dc[c] == 0 {
        apply(make([c], 0, 0, 0, 2 + draw.below(12), &draw))
        complete(&draw)
      } else if ss > 0 && dc[c] >= 0 && ac[c][ss] == 0 {
        var se = ss + draw.below(64 - ss)
        if let stop = (ss...se).first(where: { ac[c][$0] != 0 }) { se = stop - 1 }
        // Mostly Al 2-4: the lowest at which a 15-bit value wraps to zero in 16 bits, and where
        // what a later refinement adds stays small enough for the engine's inverse DCT.
        apply(make([c], ss, se, 0, draw.chance(70) ? 2 + draw.below(3) : 2 + draw.below(12), &draw))
        complete(&draw)
      }
    }
  }

  private mutating func apply(_ scan: Scan) {
    for c in scan.components {
      if scan.ss == 0 { dc[c] = scan.al } else { for k in scan.ss...scan.se { ac[c][k] = scan.al } }
    }
    scans.append(scan)
  }

  private func firstAl(_ draw: inout Draw) -> Int { draw.chance(50) ? draw.below(14) : draw.below(3) }

  private mutating func randomStep(_ draw: inout Draw) -> Scan? {
    let all = Array(frame.components.indices)
    switch draw.below(4) {
    case 0:  // DC first, or sent again once complete
      let candidates = all.filter { dc[$0] < 0 || dc[$0] == 0 && !Avoid.fromEnvironment.resentBand }
      guard !candidates.isEmpty else { return nil }
      return make(group(candidates, &draw), 0, 0, 0, firstAl(&draw), &draw)
    case 1:  // DC refinement of the next bit, of components at the same bit
      let candidates = all.filter { dc[$0] >= 1 }
      guard !candidates.isEmpty else { return nil }
      let bit = dc[candidates[draw.below(candidates.count)]]
      return make(group(candidates.filter { dc[$0] == bit }, &draw), 0, 0, bit, bit - 1, &draw)
    case 2:  // AC band, first or again
      let candidates = all.filter { dc[$0] >= 0 }
      guard !candidates.isEmpty else { return nil }
      let c = candidates[draw.below(candidates.count)]
      let ss = 1 + draw.below(63)
      let open = Avoid.fromEnvironment.resentBand ? -1 : 0  // the highest state a first scan may find
      guard ac[c][ss] <= open else { return nil }
      var se = ss + draw.below(64 - ss)
      if let stop = (ss...se).first(where: { ac[c][$0] > open }) { se = stop - 1 }
      return make([c], ss, se, 0, firstAl(&draw), &draw)
    default:  // AC refinement of the next bit of a band
      let c = all[draw.below(all.count)]
      let started = (1...63).filter { ac[c][$0] >= 1 }
      guard !started.isEmpty else { return nil }
      let ss = started[draw.below(started.count)]
      let bit = ac[c][ss]
      var se = ss + draw.below(64 - ss)
      if let stop = (ss...se).first(where: { ac[c][$0] != bit }) { se = stop - 1 }
      return make([c], ss, se, bit, bit - 1, &draw)
    }
  }

  /// Every coefficient of every component down to bit 0, in bands the input cuts.
  private mutating func complete(_ draw: inout Draw) {
    var order = Array(frame.components.indices)
    order.shuffle(using: &draw)
    let interleaved = draw.chance(50)
    let unsent = order.filter { dc[$0] < 0 }.sorted()
    if !unsent.isEmpty {
      if interleaved && frame.blocksPerMCU(unsent) <= 10 {
        apply(make(unsent, 0, 0, 0, draw.below(3), &draw))
      } else {
        for c in unsent { apply(make([c], 0, 0, 0, draw.below(3), &draw)) }
      }
    }
    for c in order {
      while dc[c] > 0 { apply(make([c], 0, 0, dc[c], dc[c] - 1, &draw)) }
      var k = 1
      while k <= 63 {
        if ac[c][k] == 0 {
          k += 1
          continue
        }
        let bit = ac[c][k]
        var se = min(63, k + draw.below(64 - k))
        if let stop = (k...se).first(where: { ac[c][$0] != bit }) { se = stop - 1 }
        apply(bit < 0 ? make([c], k, se, 0, draw.below(3), &draw) : make([c], k, se, bit, bit - 1, &draw))
      }
    }
  }
}

extension Draw: RandomNumberGenerator {
  /// Structural randomness for `shuffle(using:)`.
  mutating func next() -> UInt64 {
    var value: UInt64 = 0
    for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
    return value
  }
}
