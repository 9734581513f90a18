import Foundation

/// Colour difference between two renderings of one picture at a coarse scale (colour, not
/// resampling detail): each is averaged over the same grid of cells, each cell's mean sRGB value
/// taken to CIELAB (D65), and the CIE76 differences (ΔE*ab) averaged over the cells.
public enum ColorDifference {
  /// An sRGB picture as interleaved 8-bit samples, 1 (gray) or 3 or 4 (alpha ignored) channels.
  public struct Picture {
    public let width: Int
    public let height: Int
    public let channels: Int
    public let samples: [UInt8]

    public init(width: Int, height: Int, channels: Int, samples: [UInt8]) {
      self.width = width
      self.height = height
      self.channels = channels
      self.samples = samples
    }

    /// The mean sRGB value (0...1) of every cell of a `columns` x `rows` grid.
    func cells(columns: Int, rows: Int) -> [[Double]] {
      var sums = [[Double]](repeating: [0, 0, 0, 0], count: columns * rows)
      for y in 0..<height {
        let row = min(rows - 1, y * rows / height)
        for x in 0..<width {
          let cell = row * columns + min(columns - 1, x * columns / width)
          let at = (y * width + x) * channels
          let rgb = channels < 3 ? [samples[at], samples[at], samples[at]] : [samples[at], samples[at + 1], samples[at + 2]]
          for c in 0..<3 { sums[cell][c] += Double(rgb[c]) / 255 }
          sums[cell][3] += 1
        }
      }
      return sums.map { cell in (0..<3).map { cell[$0] / max(1, cell[3]) } }
    }
  }

  /// The mean ΔE*ab (CIE76) over a grid of `columns` x `rows` cells; with `lightnessOnly`, the mean
  /// difference in L* alone (for gray renderings of a colour picture).
  public static func meanDeltaE(
    _ reference: Picture, _ candidate: Picture, columns: Int = 12, rows: Int = 8, lightnessOnly: Bool = false
  ) -> Double {
    let a = reference.cells(columns: columns, rows: rows).map(lab)
    let b = candidate.cells(columns: columns, rows: rows).map(lab)
    let differences = zip(a, b).map { p, q in
      lightnessOnly ? abs(p[0] - q[0]) : ((p[0] - q[0]) * (p[0] - q[0]) + (p[1] - q[1]) * (p[1] - q[1]) + (p[2] - q[2]) * (p[2] - q[2])).squareRoot()
    }
    return differences.reduce(0, +) / Double(differences.count)
  }

  /// sRGB (0...1) to CIELAB, D65 white.
  static func lab(_ rgb: [Double]) -> [Double] {
    let linear = rgb.map { $0 <= 0.04045 ? $0 / 12.92 : pow(($0 + 0.055) / 1.055, 2.4) }
    let x = 0.4124564 * linear[0] + 0.3575761 * linear[1] + 0.1804375 * linear[2]
    let y = 0.2126729 * linear[0] + 0.7151522 * linear[1] + 0.0721750 * linear[2]
    let z = 0.0193339 * linear[0] + 0.1191920 * linear[1] + 0.9503041 * linear[2]
    let f = { (t: Double) -> Double in t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
    let (fx, fy, fz) = (f(x / 0.95047), f(y), f(z / 1.08883))
    return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)]
  }
}
