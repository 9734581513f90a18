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

  /// The kernel's value at distance `x` (in output-pixel units).
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
