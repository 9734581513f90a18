#if canImport(Glibc)
  import Glibc
#endif

/// The scans of a progressive JPEG that a 1/8-scale decode needs, as a smaller JPEG that decodes
/// to exactly the same pixels at 1/8 scale.
///
/// At 1/8 scale libjpeg turns each 8x8 block of a full-resolution component (luma, or every
/// component when there is no chroma subsampling in both directions) into one pixel from its DC
/// coefficient alone; the AC coefficients are decoded and then ignored. Subsampled chroma is
/// scaled with a larger inverse DCT that does use AC coefficients, so its scans are all kept. In a
/// progressive JPEG the coefficients travel in separate scans, so a stream made of every marker
/// segment, the DC scans and the chroma scans gives the identical 1/8 image while skipping the
/// luma AC data, usually most of the file.
///
/// One luma AC scan is kept per component: with no AC data at all, libjpeg's block smoothing
/// would re-estimate the DC coefficients from their neighbours and the pixels would differ.
///
/// The rest of the file is still checked for structure: every segment must be complete, every
/// scan header valid, every component must have a DC scan and the file must end with EOI, so a
/// truncated download is still refused (by the full decoder, which the caller falls back to).
/// What is not checked is the Huffman data inside the skipped scans.
///
/// ```swift
/// if let dcScans = ProgressiveDCScans.extract(from: bytes, maxScans: 500) {
///   let small = try ImageDecoder.decode(dcScans, options: DecodeOptions(jpegScale: .eighth))
/// }
/// ```
public enum ProgressiveDCScans {
  /// Builds the reduced stream.
  /// - Parameters:
  ///   - jpeg: A whole JPEG file.
  ///   - maxScans: The decoder's scan limit; a file with more scans is left to the decoder to refuse.
  /// - Returns: The stream, or `nil` when the file is not a plain progressive Huffman JPEG, its
  ///   structure is damaged in any way, a component has no first DC scan, or it has too many scans
  ///   (the caller then decodes the original, which reports why).
  public static func extract(from jpeg: [UInt8], maxScans: Int) -> [UInt8]? {
    jpeg.withUnsafeBufferPointer { bytes -> [UInt8]? in
      guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
      var output: [UInt8] = []
      output.reserveCapacity(bytes.count / 4)
      output += [0xFF, 0xD8]
      var at = 2
      var frame: Frame? = nil
      var scans = 0
      var componentsWithDC: Set<UInt8> = []
      var componentsWithAC: Set<UInt8> = []
      while true {
        // A marker: 0xFF, optional fill bytes 0xFF, then the code.
        guard at < bytes.count, bytes[at] == 0xFF else { return nil }
        while at < bytes.count && bytes[at] == 0xFF { at += 1 }
        guard at < bytes.count else { return nil }
        let marker = bytes[at]
        at += 1
        if marker == 0xD9 {
          output += [0xFF, 0xD9]
          guard let frame, componentsWithDC == Set(frame.dctScale.keys), scans <= maxScans else { return nil }
          return output
        }
        guard at + 2 <= bytes.count else { return nil }
        let length = Int(bytes[at]) << 8 | Int(bytes[at + 1])
        guard length >= 2, at + length <= bytes.count else { return nil }
        switch marker {
        case 0xC2:
          guard frame == nil, let parsed = Frame(bytes[at..<(at + length)]) else { return nil }
          frame = parsed
        case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
          return nil  // baseline, lossless, hierarchical or arithmetic: not this path
        default: break
        }
        if marker != 0xDA {
          output += bytes[(at - 2)..<(at + length)]
          at += length
          continue
        }
        // A scan header, then entropy-coded data up to the next marker that is not a stuffed
        // zero or a restart marker.
        guard let frame, length >= 6 else { return nil }
        let count = Int(bytes[at + 2])
        guard count >= 1, count <= 4, length == 6 + 2 * count else { return nil }
        let components = (0..<count).map { bytes[at + 3 + 2 * $0] }
        guard components.allSatisfy({ frame.dctScale[$0] != nil }) else { return nil }
        let spectralStart = bytes[at + 3 + 2 * count]
        let firstPass = bytes[at + 5 + 2 * count] >> 4 == 0
        guard let end = endOfEntropyData(bytes, from: at + length) else { return nil }
        scans += 1
        var keep = spectralStart == 0
        if spectralStart == 0 && firstPass { componentsWithDC.formUnion(components) }
        if spectralStart > 0, let component = components.first {
          // AC scans carry one component. Keep it if that component's inverse DCT uses AC
          // coefficients at 1/8, or if it is the component's first AC scan (see above).
          let usesAC = frame.dctScale[component]! > 1
          let firstACScan = firstPass && spectralStart <= 9 && !componentsWithAC.contains(component)
          keep = usesAC || firstACScan
          if firstACScan { componentsWithAC.insert(component) }
        }
        if keep { output += bytes[(at - 2)..<end] }
        at = end
      }
    }
  }

  /// Where the entropy-coded data starting at `start` ends: at the first marker that is not a
  /// stuffed zero (`FF 00`), a restart marker (`FF D0`…`FF D7`) or a fill byte; `nil` when the data
  /// runs to the end of the file (it was cut short).
  static func endOfEntropyData(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    var at = start
    while at < bytes.count {
      guard let found = memchr(bytes.baseAddress! + at, 0xFF, bytes.count - at) else { return nil }
      at = UnsafeRawPointer(found) - UnsafeRawPointer(bytes.baseAddress!)
      guard at + 1 < bytes.count else { return nil }
      let next = bytes[at + 1]
      if next == 0xFF {
        at += 1
      } else if next == 0x00 || (0xD0...0xD7).contains(next) {
        at += 2
      } else {
        return at
      }
    }
    return nil
  }

  /// What a progressive frame header says about its components.
  struct Frame {
    /// For each component id, the inverse DCT size libjpeg uses at 1/8 scale: 1 for components at
    /// full resolution, larger for subsampled ones (libjpeg-turbo scales chroma up through the
    /// inverse DCT rather than the upsampler when the subsampling ratio allows it).
    let dctScale: [UInt8: Int]

    /// Parses an SOF2 segment (from its length field on).
    init?(_ segment: Slice<UnsafeBufferPointer<UInt8>>) {
      let s = Array(segment)
      guard s.count >= 8, s[2] == 8 else { return nil }
      let count = Int(s[7])
      guard count >= 1, s.count == 8 + 3 * count else { return nil }
      var ids: [UInt8] = []
      var horizontal: [Int] = []
      var vertical: [Int] = []
      for k in 0..<count {
        ids.append(s[8 + 3 * k])
        horizontal.append(Int(s[9 + 3 * k] >> 4))
        vertical.append(Int(s[9 + 3 * k] & 15))
      }
      guard (horizontal + vertical).allSatisfy({ (1...4).contains($0) }) else { return nil }
      let maxH = horizontal.max()!
      let maxV = vertical.max()!
      var scales: [UInt8: Int] = [:]
      for k in 0..<count {
        var size = 1
        while size < 8 && maxH % (horizontal[k] * size * 2) == 0 && maxV % (vertical[k] * size * 2) == 0 {
          size *= 2
        }
        scales[ids[k]] = size
      }
      guard scales.count == count else { return nil }
      dctScale = scales
    }
  }
}
