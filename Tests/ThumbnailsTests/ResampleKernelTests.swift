import CResampleEngine
import ImageCodecs
import Testing

@testable import Thumbnails

/// The resampler's inner loops (Sources/CodecEngines/Resample) against the plain fixed-point
/// arithmetic they stand for: a thumbnail's pixels must not depend on which loop computed them.
@Suite(.timeLimit(.minutes(10))) struct ResampleKernelTests {
  /// `rounding + sum(weights[t] * line_t[i])` in wrapping 32-bit arithmetic, one sample at a time.
  static func plainSums<Sample: FixedWidthInteger>(
    _ lines: [Sample], stride: Int, weights: [Int16], rounding: Int32, count: Int
  ) -> [Int32] {
    (0..<count).map { i in
      weights.indices.reduce(rounding) { sum, t in sum &+ Int32(lines[t * stride + i]) &* Int32(weights[t]) }
    }
  }

  /// The first index where two arrays differ (a short failure message rather than both arrays).
  static func firstDifference<T: Equatable>(_ a: [T], _ b: [T]) -> Int? {
    a.count != b.count ? min(a.count, b.count) : a.indices.first { a[$0] != b[$0] }
  }

  /// Lines of random samples, with the extremes (0 and 255, or -32768 and 32767) overrepresented,
  /// and random weights of every magnitude, for every tap count up to 41 and lengths around the
  /// vector loop's 16.
  @Test func bothKernelsGiveThePlainSumsBitForBit() {
    var random = SeededGenerator(seed: 20261202)
    for taps in 1...41 {
      for count in [0, 1, 15, 16, 17, 31, 32, 48, 70] {
        let stride = count + Int.random(in: 0...5, using: &random)
        let weights = (0..<taps).map { _ in
          Bool.random(using: &random) ? Int16.random(in: -32768...32767, using: &random) : Int16.random(in: -800...16384, using: &random)
        }
        let rounding = Int32.random(in: -1000...1000, using: &random)
        let bytes = (0..<(taps * stride)).map { _ in
          [UInt8(0), 255, UInt8.random(in: 0...255, using: &random)].randomElement(using: &random)!
        }
        let shorts = (0..<(taps * stride)).map { _ in
          [Int16.min, Int16.max, Int16.random(in: .min ... .max, using: &random)].randomElement(using: &random)!
        }
        for shift in [0, 8, 20] {
          var narrowed = [Int16](repeating: 0, count: count)
          imc_resample_lines_u8(bytes, stride, weights, Int32(taps), rounding, Int32(shift), count, &narrowed)
          let expected = Self.plainSums(bytes, stride: stride, weights: weights, rounding: rounding, count: count)
            .map { Int16(truncatingIfNeeded: $0 &>> Int32(shift)) }
          #expect(
            Self.firstDifference(narrowed, expected) == nil, "8-bit lines: \(taps) taps, \(count) samples, shift \(shift)")
        }
        var sums = [Int32](repeating: 0, count: count)
        imc_resample_lines_i16(shorts, stride, weights, Int32(taps), rounding, count, &sums)
        let expected = Self.plainSums(shorts, stride: stride, weights: weights, rounding: rounding, count: count)
        #expect(Self.firstDifference(sums, expected) == nil, "16-bit lines: \(taps) taps, \(count) samples")
      }
    }
  }

  /// Whole resizes of random images without alpha, against the same two passes written as plain
  /// loops (vertical into 2^6-scaled 16-bit samples, then horizontal, shifted back and clamped).
  @Test(arguments: [PixelFormat.gray8, .rgb8])
  func aResizeEqualsThePlainTwoPassArithmetic(format: PixelFormat) throws {
    var random = SeededGenerator(seed: 7)
    let channels = format.channelCount
    for (width, height, outWidth, outHeight) in [(211, 157, 64, 49), (33, 300, 7, 100), (40, 40, 97, 13), (5, 3, 1, 1)] {
      let bytes = (0..<(width * height * channels)).map { _ in UInt8.random(in: 0...255, using: &random) }
      let source = Image(width: width, height: height, pixelFormat: format, bytes: bytes)!
      for filter in ResampleFilter.allCases {
        let resized = try source.resized(width: outWidth, height: outHeight, filter: filter)
        let horizontal = FilterWeights(
          filter: filter, inputCount: width, inputExtent: Double(width), outputCount: outWidth, window: 0..<outWidth)
        let vertical = FilterWeights(
          filter: filter, inputCount: height, inputExtent: Double(height), outputCount: outHeight, window: 0..<outHeight)
        var expected = [UInt8](repeating: 0, count: outWidth * outHeight * channels)
        for y in 0..<outHeight {
          let first = Int(vertical.starts[y])
          let taps = (0..<Int(vertical.counts[y])).map { vertical.weights[y * vertical.tapsPerOutput + $0] }
          let column = (0..<(width * channels)).map { i in
            let sum = taps.indices.reduce(Int32(1) << 7) { s, t in
              s &+ Int32(bytes[(first + t) * width * channels + i]) &* Int32(taps[t])
            }
            return Int16(truncatingIfNeeded: sum &>> 8)
          }
          for x in 0..<outWidth {
            let start = Int(horizontal.starts[x])
            let count = Int(horizontal.counts[x])
            for c in 0..<channels {
              let sum = (0..<count).reduce(Int32(1) << 19) { s, t in
                s &+ Int32(column[(start + t) * channels + c]) &* Int32(horizontal.weights[x * horizontal.tapsPerOutput + t])
              }
              expected[(y * outWidth + x) * channels + c] = UInt8(min(255, max(0, sum &>> 20)))
            }
          }
        }
        #expect(Self.firstDifference(resized.bytes, expected) == nil, "\(format) \(width)x\(height) → \(outWidth)x\(outHeight), \(filter)")
      }
    }
  }
}
