extension Image {
  /// An rgb8 image made gray8 with the decoder's own weights (Rec. 601 luma: 0.299, 0.587, 0.114),
  /// in sRGB gray. Other formats come back unchanged.
  func grayscale() throws(DecodeError) -> Image {
    guard pixelFormat == .rgb8 else { return self }
    var gray = try Image(width: width, height: height, pixelFormat: .gray8, orientation: orientation)
    let (width, height, stride) = (self.width, self.height, bytesPerRow)
    try withUnsafeBytes { (source) throws(DecodeError) in
      try gray.withUnsafeMutableBytes { out in
        for y in 0..<height {
          let row = source.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * stride
          let target = out.baseAddress!.assumingMemoryBound(to: UInt8.self) + y * width
          for x in 0..<width {
            let (r, g, b) = (UInt32(row[3 * x]), UInt32(row[3 * x + 1]), UInt32(row[3 * x + 2]))
            target[x] = UInt8((r * 19595 + g * 38470 + b * 7471 + 32768) >> 16)
          }
        }
      }
    }
    gray.colorSpace = .sRGB(.gray)
    return gray
  }
}
