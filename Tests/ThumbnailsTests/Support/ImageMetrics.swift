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
  /// reference. Separable: rows first, then columns. Ignores alpha semantics (use on opaque images).
  static func areaDownscale(_ image: Image, width: Int, height: Int) -> Image {
    let channels = image.pixelFormat.channelCount
    let columns = Coverage(input: image.width, output: width)
    let rows = Coverage(input: image.height, output: height)
    let rowLength = width * channels
    var horizontal = [Double](repeating: 0, count: image.height * rowLength)
    image.withUnsafeBytes { input in
      horizontal.withUnsafeMutableBufferPointer { output in
        for y in 0..<image.height {
          let inRow = y * image.width * channels
          for x in 0..<width {
            for k in columns.taps(x) {
              let weight = columns.weights[k]
              let from = inRow + columns.indices[k] * channels
              for c in 0..<channels { output[y * rowLength + x * channels + c] += weight * Double(input[from + c]) }
            }
          }
        }
      }
    }
    var out = [UInt8](repeating: 0, count: height * rowLength)
    for y in 0..<height {
      for i in 0..<rowLength {
        var sum = 0.0
        for k in rows.taps(y) { sum += rows.weights[k] * horizontal[rows.indices[k] * rowLength + i] }
        out[y * rowLength + i] = UInt8(max(0, min(255, sum.rounded())))
      }
    }
    return Image(width: width, height: height, pixelFormat: image.pixelFormat, bytes: out)!
  }

  /// For each output pixel, the input pixels it covers and their share of it (summing to 1), flat.
  struct Coverage {
    var indices: [Int] = []
    var weights: [Double] = []
    var firsts: [Int] = []

    init(input: Int, output: Int) {
      let scale = Double(input) / Double(output)
      for o in 0..<output {
        firsts.append(indices.count)
        let start = Double(o) * scale
        let end = start + scale
        for i in Int(start)..<min(input, Int(end.rounded(.up))) {
          indices.append(i)
          weights.append((min(end, Double(i + 1)) - max(start, Double(i))) / scale)
        }
      }
      firsts.append(indices.count)
    }

    func taps(_ output: Int) -> Range<Int> { firsts[output]..<firsts[output + 1] }
  }
}
