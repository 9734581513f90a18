import ImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

/// Draws the preview a ThumbHash stands for.
enum ThumbHashDecoder {
  /// The preview's longest side in pixels.
  static let side = 32

  static func render(_ hash: ThumbHash) -> Image {
    let bytes = hash.bytes
    let header = ThumbHashHeader(bytes)
    var next = 0
    /// The next `triangle` terms, turned back into coefficients of the given scale.
    func terms(columns: Int, rows: Int, scale: Double) -> [Double] {
      (0..<ThumbHashHeader.termCount(columns: columns, rows: rows)).map { _ in
        let byte = bytes[header.termsStart + next / 2]
        let nibble = next % 2 == 0 ? byte & 15 : byte >> 4
        next += 1
        return (Double(nibble) / 7.5 - 1) * scale
      }
    }
    let (columns, rows) = (header.columns, header.rows)
    let lTerms = terms(columns: columns, rows: rows, scale: header.lightnessScale)
    // The colour terms are drawn a quarter stronger: quantising them loses saturation.
    let pTerms = terms(columns: 3, rows: 3, scale: header.pScale * 1.25)
    let qTerms = terms(columns: 3, rows: 3, scale: header.qScale * 1.25)
    let aTerms = header.hasAlpha ? terms(columns: 5, rows: 5, scale: header.alphaScale) : []

    let ratio = hash.approximateAspectRatio
    let width = max(1, Int((ratio > 1 ? Double(side) : Double(side) * ratio).rounded()))
    let height = max(1, Int((ratio > 1 ? Double(side) / ratio : Double(side)).rounded()))
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    let most = max(columns, rows, header.hasAlpha ? 5 : 3)
    for y in 0..<height {
      let down = (0..<most).map { cos(Double.pi / Double(height) * (Double(y) + 0.5) * Double($0)) }
      for x in 0..<width {
        let across = (0..<most).map { cos(Double.pi / Double(width) * (Double(x) + 0.5) * Double($0)) }
        func sum(_ start: Double, _ list: [Double], columns: Int, rows: Int) -> Double {
          var (value, index) = (start, 0)
          for row in 0..<rows {
            for column in (row > 0 ? 0 : 1)..<columns where column * rows < columns * (rows - row) {
              value += list[index] * across[column] * down[row] * 2
              index += 1
            }
          }
          return value
        }
        let l = sum(header.lightness, lTerms, columns: columns, rows: rows)
        let p = sum(header.p, pTerms, columns: 3, rows: 3)
        let q = sum(header.q, qTerms, columns: 3, rows: 3)
        let a = header.hasAlpha ? sum(header.alpha, aTerms, columns: 5, rows: 5) : 1
        let rgb = ThumbHashHeader.rgb(l: l, p: p, q: q)
        let index = (y * width + x) * 4
        pixels[index] = UInt8((rgb.red * 255).rounded())
        pixels[index + 1] = UInt8((rgb.green * 255).rounded())
        pixels[index + 2] = UInt8((rgb.blue * 255).rounded())
        pixels[index + 3] = UInt8((min(1, max(0, a)) * 255).rounded())
      }
    }
    // A 32-pixel image always fits in memory; a failure here is a broken invariant.
    return Image(width: width, height: height, pixelFormat: .rgba8, bytes: pixels)!
  }
}
