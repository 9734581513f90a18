/// A Huffman table for the symbols a scan actually sends, built as T.81 Annex K.2 describes: code
/// lengths from the symbols' counts, with one reserved symbol so that no code is all ones, lengths
/// over 16 folded back, then canonical codes in the order of the table's values.
struct HuffmanTable {
  /// `counts[l - 1]`: how many codes have length l (1-16), as DHT stores them.
  var counts: [Int]
  /// The symbols in code order, as DHT stores them.
  var symbols: [UInt8]
  /// Per symbol: its code and length (length 0: not in the table).
  var code: [UInt16]
  var length: [UInt8]

  /// The table for symbols with these counts (256 entries; at least one nonzero).
  init(frequencies: [Int]) {
    var frequency = frequencies + [1]  // symbol 256 reserved: it takes the all-ones code
    var size = [Int](repeating: 0, count: 257)
    var next = [Int](repeating: -1, count: 257)
    while true {
      // The two least frequent trees (ties: the higher symbol, so the reserved one ends longest).
      var first = -1
      var second = -1
      for symbol in 0..<257 where frequency[symbol] > 0 {
        if first < 0 || frequency[symbol] <= frequency[first] {
          second = first
          first = symbol
        } else if second < 0 || frequency[symbol] <= frequency[second] {
          second = symbol
        }
      }
      if second < 0 { break }
      frequency[first] += frequency[second]
      frequency[second] = 0
      // Every symbol of both trees is one bit longer; the second's list joins the first's.
      var walk = first
      size[walk] += 1
      while next[walk] >= 0 {
        walk = next[walk]
        size[walk] += 1
      }
      next[walk] = second
      walk = second
      size[walk] += 1
      while next[walk] >= 0 {
        walk = next[walk]
        size[walk] += 1
      }
    }
    var bits = [Int](repeating: 0, count: 40)
    for symbol in 0..<257 where size[symbol] > 0 { bits[size[symbol]] += 1 }
    // Lengths over 16: a pair of the longest codes becomes one code a bit shorter and a shorter
    // code grows into two (K.3's Adjust_BITS).
    for long in stride(from: 39, to: 16, by: -1) {
      while bits[long] > 0 {
        var shorter = long - 2
        while bits[shorter] == 0 { shorter -= 1 }
        bits[long] -= 2
        bits[long - 1] += 1
        bits[shorter + 1] += 2
        bits[shorter] -= 1
      }
    }
    var longest = 16
    while bits[longest] == 0 { longest -= 1 }
    bits[longest] -= 1  // the reserved symbol's code goes
    counts = Array(bits[1...16])
    // Symbols by their first code length, then by value (the reserved one, longest, is dropped).
    var ordered: [UInt8] = []
    for bitLength in 1..<40 {
      for symbol in 0..<256 where size[symbol] == bitLength { ordered.append(UInt8(symbol)) }
    }
    symbols = ordered
    code = [UInt16](repeating: 0, count: 256)
    length = [UInt8](repeating: 0, count: 256)
    var value = 0
    var index = 0
    for bitLength in 1...16 {
      for _ in 0..<counts[bitLength - 1] {
        code[Int(symbols[index])] = UInt16(value)
        length[Int(symbols[index])] = UInt8(bitLength)
        value += 1
        index += 1
      }
      value <<= 1
    }
  }

  /// Whether every symbol counted in `frequencies` has a code here (a scan may then reuse it).
  func covers(_ frequencies: [Int]) -> Bool {
    for symbol in 0..<256 where frequencies[symbol] > 0 && length[symbol] == 0 { return false }
    return true
  }
}
