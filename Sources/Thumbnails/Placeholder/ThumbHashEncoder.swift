#if canImport(Glibc)
  import Glibc
#endif

/// Makes a ThumbHash's bytes from pixels (the format of ``ThumbHashHeader``).
enum ThumbHashEncoder {
  /// One channel's cosine terms over a triangle of `columns` by `rows`: the constant term, the
  /// others scaled into 0...1 (0.5 is zero), and the scale that undoes it.
  struct Channel {
    var constant = 0.0
    var terms: [Double] = []
    var scale = 0.0
  }

  static func encode(_ pixels: ThumbHashPixels) -> [UInt8] {
    let (width, height, rgba) = (pixels.width, pixels.height, pixels.rgba)
    let count = width * height
    // The average colour, weighted by alpha; total alpha below the pixel count means transparency.
    var (red, green, blue, totalAlpha) = (0.0, 0.0, 0.0, 0.0)
    for index in 0..<count {
      let alpha = rgba[index * 4 + 3]
      red += alpha * rgba[index * 4]
      green += alpha * rgba[index * 4 + 1]
      blue += alpha * rgba[index * 4 + 2]
      totalAlpha += alpha
    }
    if totalAlpha > 0 { (red, green, blue) = (red / totalAlpha, green / totalAlpha, blue / totalAlpha) }
    let hasAlpha = totalAlpha < Double(count) - 1e-9
    let longest = Double(max(width, height))
    let limit = Double(hasAlpha ? 5 : 7)
    let columns = max(1, Int((limit * Double(width) / longest).rounded()))
    let rows = max(1, Int((limit * Double(height) / longest).rounded()))

    // Lightness, two colour differences and alpha, transparent pixels over the average colour.
    var (l, p, q, a) = ([Double](), [Double](), [Double](), [Double]())
    (l, p, q, a) = (
      Array(repeating: 0, count: count), Array(repeating: 0, count: count), Array(repeating: 0, count: count),
      Array(repeating: 0, count: count)
    )
    for index in 0..<count {
      let alpha = rgba[index * 4 + 3]
      let r = red * (1 - alpha) + alpha * rgba[index * 4]
      let g = green * (1 - alpha) + alpha * rgba[index * 4 + 1]
      let b = blue * (1 - alpha) + alpha * rgba[index * 4 + 2]
      l[index] = (r + g + b) / 3
      p[index] = (r + g) / 2 - b
      q[index] = r - g
      a[index] = alpha
    }
    let lightness = channel(l, width: width, height: height, columns: max(3, columns), rows: max(3, rows))
    let pChannel = channel(p, width: width, height: height, columns: 3, rows: 3)
    let qChannel = channel(q, width: width, height: height, columns: 3, rows: 3)
    let alphaChannel = hasAlpha ? channel(a, width: width, height: height, columns: 5, rows: 5) : nil

    let isLandscape = width > height
    func quantised(_ value: Double, _ steps: Double) -> Int { Int((value * steps).rounded()) }
    let low =
      quantised(lightness.constant, 63) | quantised(0.5 + 0.5 * pChannel.constant, 63) << 6
      | quantised(0.5 + 0.5 * qChannel.constant, 63) << 12 | quantised(lightness.scale, 31) << 18
      | (hasAlpha ? 1 << 23 : 0)
    let high =
      (isLandscape ? rows : columns) | quantised(pChannel.scale, 63) << 3 | quantised(qChannel.scale, 63) << 9
      | (isLandscape ? 1 << 15 : 0)
    var bytes: [UInt8] = [
      UInt8(low & 255), UInt8((low >> 8) & 255), UInt8(low >> 16), UInt8(high & 255), UInt8(high >> 8),
    ]
    if let alphaChannel {
      bytes.append(UInt8(quantised(alphaChannel.constant, 15) | quantised(alphaChannel.scale, 15) << 4))
    }
    let terms = lightness.terms + pChannel.terms + qChannel.terms + (alphaChannel?.terms ?? [])
    for (index, term) in terms.enumerated() {
      let nibble = UInt8(quantised(term, 15))
      if index % 2 == 0 { bytes.append(nibble) } else { bytes[bytes.count - 1] |= nibble << 4 }
    }
    return bytes
  }

  /// The cosine transform of one channel, over the terms of the triangle
  /// `column * rows < columns * (rows - row)`, row by row.
  static func channel(_ values: [Double], width: Int, height: Int, columns: Int, rows: Int) -> Channel {
    var result = Channel()
    var across = [Double](repeating: 0, count: width)
    for row in 0..<rows {
      for column in 0..<columns where column * rows < columns * (rows - row) {
        for x in 0..<width { across[x] = cos(Double.pi / Double(width) * Double(column) * (Double(x) + 0.5)) }
        var sum = 0.0
        for y in 0..<height {
          let down = cos(Double.pi / Double(height) * Double(row) * (Double(y) + 0.5))
          for x in 0..<width { sum += values[x + y * width] * across[x] * down }
        }
        let term = sum / Double(width * height)
        if row == 0 && column == 0 { result.constant = term } else { result.terms.append(term) }
      }
    }
    result.scale = result.terms.reduce(0) { max($0, abs($1)) }
    if result.scale > 0 {
      result.terms = result.terms.map { 0.5 + 0.5 / result.scale * $0 }
    } else {
      result.terms = result.terms.map { _ in 0.5 }
    }
    return result
  }
}
