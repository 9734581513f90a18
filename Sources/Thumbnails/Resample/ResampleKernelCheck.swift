internal import CResampleEngine

/// The resampler's inner loops (`imc_resample.h`) beside the plain arithmetic they stand for, on
/// lines, weights and lengths taken from arbitrary bytes, with every buffer exactly as long as the
/// kernels may read or write (so AddressSanitizer sees a stray access): the fuzzer's way
/// (`FuzzResample`) to hold both kernels to the sums, bit for bit. Public only for the fuzz package,
/// behind `@_spi(Fuzzing)`: not part of the API.
@_spi(Fuzzing) public enum ResampleKernelCheck {
  /// Whether both kernels give the plain sums for the case `input` describes: byte 0 the taps (1-48),
  /// byte 1 the samples per line (0-255), byte 2 the padding between lines (0-16) and the rounding
  /// term, byte 3 the 8-bit kernel's shift (0-31); then two bytes per weight (little-endian), then
  /// the samples (cycled to fill the lines, the 16-bit lines from pairs of bytes).
  public static func agrees(_ input: [UInt8]) -> Bool {
    guard input.count >= 4 else { return true }
    let taps = 1 + Int(input[0]) % 48
    let count = Int(input[1])
    let stride = count + Int(input[2]) % 17
    let rounding = Int32(Int8(bitPattern: input[2])) << 8
    let shift = Int32(input[3] % 32)
    let weights = (0..<taps).map { t -> Int16 in
      let at = 4 + 2 * t
      let low = at < input.count ? UInt16(input[at]) : 0
      let high = at + 1 < input.count ? UInt16(input[at + 1]) : 0
      return Int16(bitPattern: low | high << 8)
    }
    let samples = input.dropFirst(4 + 2 * taps)
    let length = (taps - 1) * stride + count  // the kernels read exactly this far
    let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, length))
    let shorts = UnsafeMutablePointer<Int16>.allocate(capacity: max(1, length))
    let narrowed = UnsafeMutablePointer<Int16>.allocate(capacity: max(1, count))
    let sums = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, count))
    defer {
      bytes.deallocate()
      shorts.deallocate()
      narrowed.deallocate()
      sums.deallocate()
    }
    for i in 0..<length {
      let byte = samples.isEmpty ? 0 : samples[samples.startIndex + i % samples.count]
      let next = samples.isEmpty ? 0 : samples[samples.startIndex + (i + 1) % samples.count]
      bytes[i] = byte
      shorts[i] = Int16(bitPattern: UInt16(byte) | UInt16(next) << 8)
    }
    imc_resample_lines_u8(bytes, stride, weights, Int32(taps), rounding, shift, count, narrowed)
    imc_resample_lines_i16(shorts, stride, weights, Int32(taps), rounding, count, sums)
    for i in 0..<count {
      var byteSum = rounding
      var shortSum = rounding
      for t in 0..<taps {
        byteSum &+= Int32(bytes[t * stride + i]) &* Int32(weights[t])
        shortSum &+= Int32(shorts[t * stride + i]) &* Int32(weights[t])
      }
      if narrowed[i] != Int16(truncatingIfNeeded: byteSum &>> shift) || sums[i] != shortSum { return false }
    }
    return true
  }
}
