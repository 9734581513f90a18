import Glibc

/// Known defects a campaign can ask the generator not to make, while their fixes are pending, so
/// that a defect found every minute does not hide the rest: `FUZZ_JPEG_STRUCTURE_AVOID` is a
/// comma-separated list of these names. CI and the regressions never set it.
struct Avoid {
  /// Chroma sampled more finely than luma (e.g. 1x1, 2x1, 2x1).
  var finerChroma = false
  /// A band (DC or AC) sent again as a first scan once complete.
  var resentBand = false

  static let fromEnvironment: Avoid = {
    var avoid = Avoid()
    guard let value = getenv("FUZZ_JPEG_STRUCTURE_AVOID") else { return avoid }
    for name in String(cString: value).split(separator: ",") {
      switch name {
      case "finer-chroma": avoid.finerChroma = true
      case "resent-band": avoid.resentBand = true
      default: preconditionFailure("FUZZ_JPEG_STRUCTURE_AVOID: no defect named \(name)")
      }
    }
    return avoid
  }()
}
