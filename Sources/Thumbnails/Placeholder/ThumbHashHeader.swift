/// The fixed part of a ThumbHash: the constant terms, the scales of the other terms, how many
/// lightness terms there are along each side, and where the four-bit terms start.
///
/// Bytes 0-2 (little-endian, 24 bits): lightness DC (6 bits), P DC (6), Q DC (6), lightness
/// scale (5), alpha flag (1). Bytes 3-4 (16 bits): the lightness term count along the shorter
/// side (3 bits), P scale (6), Q scale (6), landscape flag (1). With alpha, byte 5: alpha DC
/// (4 bits) and alpha scale (4). Then the terms, two to a byte, low nibble first.
struct ThumbHashHeader {
  let lightness: Double
  let p: Double
  let q: Double
  let lightnessScale: Double
  let hasAlpha: Bool
  let pScale: Double
  let qScale: Double
  let isLandscape: Bool
  /// The lightness term count along the shorter side, as stored (may be below 3).
  let shorterSide: Int
  let alpha: Double
  let alphaScale: Double

  init(_ bytes: [UInt8]) {
    let low = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16
    let high = Int(bytes[3]) | Int(bytes[4]) << 8
    lightness = Double(low & 63) / 63
    p = Double((low >> 6) & 63) / 31.5 - 1
    q = Double((low >> 12) & 63) / 31.5 - 1
    lightnessScale = Double((low >> 18) & 31) / 31
    hasAlpha = (low >> 23) & 1 == 1
    shorterSide = high & 7
    pScale = Double((high >> 3) & 63) / 63
    qScale = Double((high >> 9) & 63) / 63
    isLandscape = (high >> 15) & 1 == 1
    if hasAlpha && bytes.count > 5 {
      alpha = Double(bytes[5] & 15) / 15
      alphaScale = Double(bytes[5] >> 4) / 15
    } else {
      (alpha, alphaScale) = (1, 0)
    }
  }

  /// The lightness term count along the longer side.
  var longerSide: Int { hasAlpha ? 5 : 7 }
  /// Lightness term counts across and down, as stored (for the aspect ratio).
  var storedColumns: Int { isLandscape ? longerSide : shorterSide }
  var storedRows: Int { isLandscape ? shorterSide : longerSide }
  /// Lightness term counts across and down, as decoded (at least 3 each).
  var columns: Int { max(3, storedColumns) }
  var rows: Int { max(3, storedRows) }
  /// Where the four-bit terms start.
  var termsStart: Int { hasAlpha ? 6 : 5 }

  /// The number of terms of a triangle of `columns` by `rows`, the constant term left out.
  static func termCount(columns: Int, rows: Int) -> Int {
    var count = 0
    for row in 0..<rows { for column in 0..<columns where column * rows < columns * (rows - row) { count += 1 } }
    return count - 1
  }

  /// The whole hash's length in bytes.
  var byteCount: Int {
    let terms =
      Self.termCount(columns: columns, rows: rows) + 2 * Self.termCount(columns: 3, rows: 3)
      + (hasAlpha ? Self.termCount(columns: 5, rows: 5) : 0)
    return termsStart + (terms + 1) / 2
  }

  /// Red, green and blue (0...1, clamped) from lightness and the two colour differences.
  static func rgb(l: Double, p: Double, q: Double) -> (red: Double, green: Double, blue: Double) {
    let blue = l - 2.0 / 3.0 * p
    let red = (3 * l - blue + q) / 2
    let green = red - q
    return (min(1, max(0, red)), min(1, max(0, green)), min(1, max(0, blue)))
  }
}
