import ImageCodecs

/// Finds where a ``ThumbnailCropAnchor/attention`` crop window goes, on the already-resampled image
/// (so no second decode and little work: the image is only a little larger than the thumbnail).
///
/// Each pixel scores, as libvips' `attention` does in spirit: the luma gradient magnitude
/// (`|Y(x+1) - Y(x-1)| + |Y(y+1) - Y(y-1)|`, edges clamped), plus the saturation
/// (`max(R, G, B) - min(R, G, B)`), plus a bonus for skin tones, all weighted by alpha. Scores are
/// summed per column and per row, and along each axis the window with the largest sum wins; ties go
/// to the window nearest the centre, so a featureless image is cropped as ``ThumbnailCropAnchor/centre``.
enum AttentionCrop {
  /// The score a pixel in the usual skin-tone range adds.
  static let skinBonus = 64

  /// The crop window's top-left corner.
  /// - Parameters:
  ///   - image: An 8-bit image with straight (or no) alpha.
  ///   - width: The window's width, at most `image.width`.
  ///   - height: The window's height, at most `image.height`.
  /// - Returns: The window's offsets, `0...image.width - width` and `0...image.height - height`.
  static func origin(in image: Image, width: Int, height: Int) -> (x: Int, y: Int) {
    let (columns, rows) = sums(of: image)
    return (bestOffset(columns, window: width), bestOffset(rows, window: height))
  }

  /// The offset whose `window` consecutive values sum highest, ties going nearest the centre.
  static func bestOffset(_ values: [Int], window: Int) -> Int {
    let last = values.count - window
    guard last > 0 else { return 0 }
    var sum = values[0..<window].reduce(0, +)
    var best = (offset: 0, sum: sum, distance: abs(2 * 0 - last))
    for offset in 1...last {
      sum += values[offset + window - 1] - values[offset - 1]
      let distance = abs(2 * offset - last)
      if sum > best.sum || (sum == best.sum && distance < best.distance) {
        best = (offset, sum, distance)
      }
    }
    return best.offset
  }

  /// Every pixel's score, summed per column and per row.
  static func sums(of image: Image) -> (columns: [Int], rows: [Int]) {
    let (width, height) = (image.width, image.height)
    let channels = image.pixelFormat.channelCount
    let stride = image.bytesPerRow
    var columns = [Int](repeating: 0, count: width)
    var rows = [Int](repeating: 0, count: height)
    image.withUnsafeBytes { bytes in
      let pixels = bytes.bindMemory(to: UInt8.self)
      func luma(_ x: Int, _ y: Int) -> Int {
        let at = y * stride + x * channels
        guard channels >= 3 else { return Int(pixels[at]) }
        return (77 * Int(pixels[at]) + 150 * Int(pixels[at + 1]) + 29 * Int(pixels[at + 2])) >> 8
      }
      for y in 0..<height {
        let (up, down) = (max(0, y - 1), min(height - 1, y + 1))
        for x in 0..<width {
          let (left, right) = (max(0, x - 1), min(width - 1, x + 1))
          var score = abs(luma(right, y) - luma(left, y)) + abs(luma(x, down) - luma(x, up))
          let at = y * stride + x * channels
          if channels >= 3 {
            let (red, green, blue) = (Int(pixels[at]), Int(pixels[at + 1]), Int(pixels[at + 2]))
            score += max(red, green, blue) - min(red, green, blue)
            if isSkin(red: red, green: green, blue: blue) { score += skinBonus }
          }
          if image.hasAlpha { score = score * Int(pixels[at + channels - 1]) / 255 }
          columns[x] += score
          rows[y] += score
        }
      }
    }
    return (columns, rows)
  }

  /// The common RGB skin-tone rule (Kovac et al.): reddish, not too dark, not grey.
  static func isSkin(red: Int, green: Int, blue: Int) -> Bool {
    red > 95 && green > 40 && blue > 20 && red > green && red > blue
      && red - min(green, blue) > 15 && abs(red - green) > 15
  }
}
