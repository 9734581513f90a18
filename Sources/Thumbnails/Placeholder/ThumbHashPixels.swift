import ImageCodecs

/// An image's pixels as the ThumbHash encoder reads them: straight RGBA in 0...1, at most 100
/// pixels on the longer side (a larger image box-averaged down, colour weighted by alpha).
struct ThumbHashPixels {
  let width: Int
  let height: Int
  /// Red, green, blue, alpha per pixel, row by row.
  let rgba: [Double]

  static let largestSide = 100

  init(image: Image) {
    let (sourceWidth, sourceHeight) = (image.width, image.height)
    let longer = max(sourceWidth, sourceHeight)
    let scale = longer > Self.largestSide ? Double(Self.largestSide) / Double(longer) : 1
    width = max(1, min(Self.largestSide, Int((Double(sourceWidth) * scale).rounded())))
    height = max(1, min(Self.largestSide, Int((Double(sourceHeight) * scale).rounded())))
    let format = image.pixelFormat
    let (channels, sampleBytes, rowBytes) = (format.channelCount, format.bytesPerSample, image.bytesPerRow)
    // Sample offset of the high byte of a 16-bit host-endian sample.
    let high = sampleBytes == 2 && UInt16(1).littleEndian == 1 ? 1 : 0
    var values = [Double](repeating: 0, count: width * height * 4)
    let (targetWidth, targetHeight) = (width, height)
    image.withUnsafeBytes { bytes in
      func sample(_ x: Int, _ y: Int, _ channel: Int) -> Double {
        Double(bytes[y * rowBytes + (x * channels + channel) * sampleBytes + high]) / 255
      }
      for ty in 0..<targetHeight {
        let (y0, y1) = (
          ty * sourceHeight / targetHeight,
          max(ty * sourceHeight / targetHeight + 1, (ty + 1) * sourceHeight / targetHeight)
        )
        for tx in 0..<targetWidth {
          let (x0, x1) = (
            tx * sourceWidth / targetWidth,
            max(tx * sourceWidth / targetWidth + 1, (tx + 1) * sourceWidth / targetWidth)
          )
          var (r, g, b, a, plain) = (0.0, 0.0, 0.0, 0.0, [0.0, 0.0, 0.0])
          for y in y0..<y1 {
            for x in x0..<x1 {
              let alpha = format.hasAlpha ? sample(x, y, channels - 1) : 1
              let colour: (Double, Double, Double) =
                format.isColor
                ? (sample(x, y, 0), sample(x, y, 1), sample(x, y, 2))
                : (sample(x, y, 0), sample(x, y, 0), sample(x, y, 0))
              (r, g, b, a) = (r + colour.0 * alpha, g + colour.1 * alpha, b + colour.2 * alpha, a + alpha)
              plain = [plain[0] + colour.0, plain[1] + colour.1, plain[2] + colour.2]
            }
          }
          let count = Double((y1 - y0) * (x1 - x0))
          let index = (ty * targetWidth + tx) * 4
          // A wholly transparent box keeps its plain average (it is weighted by zero anyway).
          if a > 0 {
            (values[index], values[index + 1], values[index + 2]) = (r / a, g / a, b / a)
          } else {
            (values[index], values[index + 1], values[index + 2]) = (
              plain[0] / count, plain[1] / count, plain[2] / count
            )
          }
          values[index + 3] = a / count
        }
      }
    }
    rgba = values
  }
}
