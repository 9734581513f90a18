#if canImport(Glibc)
  import Glibc
#endif

/// The filter of the final resampling step.
public enum ResampleFilter: String, Sendable, Hashable, CaseIterable {
  /// Windowed sinc with three lobes: sharp, the quality reference (libvips' and Pillow's default).
  case lanczos3
  /// A triangle (tent) filter stretched over the reduction factor: about three times fewer taps
  /// than Lanczos3 and slightly softer.
  case bilinear

  /// How far the kernel reaches, in input pixels at a scale of 1.
  var support: Double {
    switch self {
    case .lanczos3: 3
    case .bilinear: 1
    }
  }

  /// The kernel's values at the centres of `count` consecutive input pixels, the first of which
  /// lies `start` away from the output pixel's centre (in kernel units), each `step` further.
  ///
  /// Lanczos3 needs `sin(πx)` and `sin(πx/3)` at every tap; consecutive taps are a fixed angle
  /// apart, so both sines are carried from tap to tap by rotating (sin, cos) pairs: four calls to
  /// the sine and cosine per output pixel instead of two per tap.
  func weights(start: Double, step: Double, count: Int, into values: inout [Double]) {
    values.removeAll(keepingCapacity: true)
    switch self {
    case .bilinear:
      for k in 0..<count { values.append(weight(start + Double(k) * step)) }
    case .lanczos3:
      var angle = (sin: sin(Double.pi * start), cos: cos(Double.pi * start))
      var third = (sin: sin(Double.pi * start / 3), cos: cos(Double.pi * start / 3))
      let turn = (sin: sin(Double.pi * step), cos: cos(Double.pi * step))
      let turnThird = (sin: sin(Double.pi * step / 3), cos: cos(Double.pi * step / 3))
      for k in 0..<count {
        let x = start + Double(k) * step
        if abs(x) >= 3 {
          values.append(0)
        } else if abs(x) < 1e-9 {
          values.append(1)
        } else {
          values.append(3 * angle.sin * third.sin / (Double.pi * Double.pi * x * x))
        }
        angle = (angle.sin * turn.cos + angle.cos * turn.sin, angle.cos * turn.cos - angle.sin * turn.sin)
        third = (
          third.sin * turnThird.cos + third.cos * turnThird.sin, third.cos * turnThird.cos - third.sin * turnThird.sin
        )
      }
    }
  }

  /// The kernel's value at distance `x` (in kernel units).
  func weight(_ x: Double) -> Double {
    let x = abs(x)
    switch self {
    case .lanczos3:
      guard x < 3 else { return 0 }
      guard x > 1e-9 else { return 1 }
      let px = Double.pi * x
      return 3 * sin(px) * sin(px / 3) / (px * px)
    case .bilinear:
      return x < 1 ? 1 - x : 0
    }
  }
}
