import Foundation
import ImageCodecs

/// Image comparisons for tests: PSNR and an independent area-average downscale to compare against.
enum ImageMetrics {
  /// Peak signal-to-noise ratio in dB over every sample; `.infinity` for identical images.
  static func psnr(_ a: Image, _ b: Image) -> Double {
    precondition(a.width == b.width && a.height == b.height && a.pixelFormat == b.pixelFormat, "\(a) vs \(b)")
    let (x, y) = (a.bytes, b.bytes)
    var squares = 0.0
    for i in x.indices {
      let d = Double(x[i]) - Double(y[i])
      squares += d * d
    }
    let mse = squares / Double(x.count)
    return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
  }

  /// The largest difference between corresponding samples.
  static func maxDifference(_ a: Image, _ b: Image) -> Int {
    zip(a.bytes, b.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
  }

  /// Downscales by exact area averaging (each output pixel is the mean of the source area it
  /// covers, fractional pixels weighted by coverage), in double precision: a simple, independent
  /// reference. Ignores alpha semantics (use on opaque images).
  static func areaDownscale(_ image: Image, width: Int, height: Int) -> Image {
    let channels = image.pixelFormat.channelCount
    let source = image.bytes
    let sx = Double(image.width) / Double(width)
    let sy = Double(image.height) / Double(height)
    var out = [UInt8](repeating: 0, count: width * height * channels)
    for oy in 0..<height {
      let y0 = Double(oy) * sy
      let y1 = y0 + sy
      for ox in 0..<width {
        let x0 = Double(ox) * sx
        let x1 = x0 + sx
        var sums = [Double](repeating: 0, count: channels)
        var total = 0.0
        for iy in Int(y0)..<min(image.height, Int(y1.rounded(.up))) {
          let wy = min(y1, Double(iy + 1)) - max(y0, Double(iy))
          for ix in Int(x0)..<min(image.width, Int(x1.rounded(.up))) {
            let w = wy * (min(x1, Double(ix + 1)) - max(x0, Double(ix)))
            for c in 0..<channels { sums[c] += w * Double(source[(iy * image.width + ix) * channels + c]) }
            total += w
          }
        }
        for c in 0..<channels { out[(oy * width + ox) * channels + c] = UInt8((sums[c] / total).rounded()) }
      }
    }
    return Image(width: width, height: height, pixelFormat: image.pixelFormat, bytes: out)!
  }
}
