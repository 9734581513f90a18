/// Where every choice of the generator comes from. Structural choices (`byte`, `below`, `chance`)
/// read the fuzzer's input in order, so that a mutation of a byte changes one decision; once the
/// input is used up they continue from a generator seeded by it. Coefficient values and
/// correction bits (`noise`) come from a second generator, seeded by the input's first four bytes,
/// so that the many random values do not eat the structural bytes.
struct Draw {
  private let input: [UInt8]
  private var at: Int
  private var structure: UInt64
  private var values: UInt64

  init(_ input: [UInt8]) {
    self.input = input
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    for byte in input.prefix(4) { seed = (seed ^ UInt64(byte)) &* 0x100_0000_01B3 }
    values = seed | 1
    var whole: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in input { whole = (whole ^ UInt64(byte)) &* 0x100_0000_01B3 }
    structure = whole | 1
    at = min(4, input.count)
  }

  private static func next(_ state: inout UInt64) -> UInt64 {
    // xorshift64*: quick, and good enough for choosing coefficients.
    state ^= state >> 12
    state ^= state << 25
    state ^= state >> 27
    return state &* 0x2545_F491_4F6C_DD1D
  }

  /// The next structural byte.
  mutating func byte() -> Int {
    if at < input.count {
      at += 1
      return Int(input[at - 1])
    }
    return Int(Draw.next(&structure) >> 56)
  }

  /// A structural choice in `0..<count` (count at most 65,536).
  mutating func below(_ count: Int) -> Int {
    guard count > 1 else { return 0 }
    if count <= 256 { return byte() % count }
    return (byte() << 8 | byte()) % count
  }

  /// A structural yes with the chance `percent` in 100.
  mutating func chance(_ percent: Int) -> Bool { below(100) < percent }

  /// A value in `0..<count` from the values' generator.
  mutating func noise(_ count: Int) -> Int {
    guard count > 1 else { return 0 }
    return Int(Draw.next(&values) % UInt64(count))
  }
}
