import Foundation
import ImageCodecs
import Testing

@testable import Thumbnails

@Suite(.timeLimit(.minutes(30))) struct ResamplingTests {
  @Test(arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8])
  func flatImagesStayExactlyFlatUpToTheEdges(format: PixelFormat) throws {
    let pixel: [UInt8] =
      [200, 90, 30, 255].prefix(format.channelCount - (format.hasAlpha ? 1 : 0)) + (format.hasAlpha ? [255] : [])
    let source = TestImages.flat(width: 97, height: 61, pixel: pixel, format: format)
    for filter in ResampleFilter.allCases {
      for (width, height) in [(10, 7), (33, 20), (96, 60), (150, 100), (1, 1), (97, 1)] {
        let resized = try source.resized(width: width, height: height, filter: filter)
        #expect(resized.pixelFormat == format)
        #expect((resized.width, resized.height) == (width, height))
        #expect(resized.bytes == TestImages.flat(width: width, height: height, pixel: pixel, format: format).bytes)
      }
    }
  }

  @Test func lanczos3MatchesADoublePrecisionResampleWithinOneLevel() throws {
    let source = TestImages.pattern(width: 211, height: 157)
    let resized = try source.resized(width: 64, height: 49)
    let reference = ReferenceLanczos.resize(source, width: 64, height: 49)
    #expect(ImageMetrics.maxDifference(resized, reference) <= 1)
  }

  @Test func sharpEdgesClampInsteadOfWrappingAround() throws {
    // Half black, half white: Lanczos overshoots past 0 and 255 next to the edge.
    let bytes = (0..<(80 * 40)).map { $0 % 80 < 40 ? UInt8(0) : 255 }
    let source = Image(width: 80, height: 40, pixelFormat: .gray8, bytes: bytes)!
    let resized = try source.resized(width: 30, height: 15).bytes
    for y in 0..<15 {
      let row = Array(resized[(y * 30)..<(y * 30 + 30)])
      #expect(row.prefix(12).allSatisfy { $0 <= 3 }, "dark side stays dark: \(row)")
      #expect(row.suffix(12).allSatisfy { $0 >= 252 }, "bright side stays bright: \(row)")
    }
  }

  /// The invisible colour of transparent pixels must not show: black would darken the edge (a
  /// halo), magenta would tint it.
  @Test(arguments: [[UInt8](arrayLiteral: 0, 0, 0), [255, 0, 255]])
  func aTransparentBorderLeavesNoHalo(hidden: [UInt8]) throws {
    let colour: [UInt8] = [40, 200, 40]
    let source = TestImages.transparentBorder(size: 120, border: 20, colour: colour, hidden: hidden)
    for filter in ResampleFilter.allCases {
      let bytes = try source.resized(width: 37, height: 37, filter: filter).bytes
      for pixel in stride(from: 0, to: bytes.count, by: 4) where bytes[pixel + 3] > 0 {
        let visible = (0..<3).map { Int(bytes[pixel + $0]) }
        #expect(
          zip(visible, colour).allSatisfy { abs($0 - Int($1)) <= 4 }, "\(filter): \(visible) alpha \(bytes[pixel + 3])")
      }
      // The edge is soft in alpha, not in colour.
      #expect(Set(stride(from: 3, to: bytes.count, by: 4).map { bytes[$0] }).count > 3)
    }
  }

  @Test func alphaIsKeptAndFilteredLikeColour() throws {
    let source = TestImages.transparentBorder(size: 64, border: 16, colour: [10, 200, 30])
    let resized = try source.resized(width: 16, height: 16)
    #expect(resized.pixelFormat == .rgba8)
    let bytes = resized.bytes
    #expect(bytes[3] == 0)  // corner: transparent
    #expect(bytes[(8 * 16 + 8) * 4 + 3] == 255)  // centre: opaque
    #expect(Array(bytes[((8 * 16 + 8) * 4)..<((8 * 16 + 8) * 4 + 3)]) == [10, 200, 30])
  }

  @Test func bilinearIsAFasterSofterAlternative() throws {
    let source = TestImages.pattern(width: 300, height: 200)
    let lanczos = try source.resized(width: 75, height: 50)
    let bilinear = try source.resized(width: 75, height: 50, filter: .bilinear)
    let weights = { (filter: ResampleFilter) in
      FilterWeights(filter: filter, inputCount: 300, inputExtent: 300, outputCount: 75, window: 0..<75).tapsPerOutput
    }
    #expect(weights(.bilinear) * 2 < weights(.lanczos3))
    #expect(ImageMetrics.psnr(lanczos, bilinear) > 30)
  }

  @Test func upscalingInterpolatesWithoutRingingOnFlatAreas() throws {
    let source = TestImages.pattern(width: 20, height: 10)
    let large = try source.resized(width: 80, height: 40)
    let reference = ReferenceLanczos.resize(source, width: 80, height: 40)
    #expect(ImageMetrics.maxDifference(large, reference) <= 1)
  }

  @Test func weightsSumToExactlyOneAndStayInsideTheInput() {
    for (input, output) in [(100, 7), (7, 100), (1, 5), (5, 1), (1001, 256), (3, 3)] {
      let weights = FilterWeights(
        filter: .lanczos3, inputCount: input, inputExtent: Double(input), outputCount: output, window: 0..<output)
      for i in 0..<output {
        let start = Int(weights.starts[i])
        let count = Int(weights.counts[i])
        #expect(start >= 0 && count >= 1 && start + count <= input)
        let sum = (0..<count).reduce(0) { $0 + Int(weights.weights[i * weights.tapsPerOutput + $1]) }
        #expect(sum == 1 << FilterWeights.fractionBits)
      }
    }
  }

  @Test func boxShrinkAveragesWholeAndPartialBlocks() throws {
    let bytes: [UInt8] = [
      0, 10, 20, 30, 40,
      50, 60, 70, 80, 90,
      100, 110, 120, 130, 140,
    ]
    let source = Image(width: 5, height: 3, pixelFormat: .gray8, bytes: bytes)!
    let shrunk = try BoxShrink.shrink(source, factorX: 2, factorY: 2)
    #expect((shrunk.width, shrunk.height) == (3, 2))
    // (0+10+50+60)/4=30, (20+30+70+80)/4=50, (40+90)/2=65; (100+110)/2=105, 125, 140.
    #expect(shrunk.bytes == [30, 50, 65, 105, 125, 140])
  }
}

/// A direct, double-precision separable Lanczos3 (the textbook definition: kernel centred on each
/// output pixel's centre, stretched by the reduction factor, cut at the edges and renormalised).
enum ReferenceLanczos {
  static func resize(_ image: Image, width: Int, height: Int) -> Image {
    let channels = image.pixelFormat.channelCount
    let source = image.bytes.map(Double.init)
    func weights(input: Int, output: Int) -> [[(Int, Double)]] {
      let scale = Double(input) / Double(output)
      let stretch = max(1, scale)
      return (0..<output).map { o in
        let centre = (Double(o) + 0.5) * scale
        var taps: [(Int, Double)] = []
        for i in 0..<input {
          let x = abs((Double(i) + 0.5 - centre) / stretch)
          let w = x < 1e-12 ? 1 : x < 3 ? 3 * sin(.pi * x) * sin(.pi * x / 3) / (.pi * .pi * x * x) : 0
          if w != 0 { taps.append((i, w)) }
        }
        let total = taps.reduce(0) { $0 + $1.1 }
        return taps.map { ($0.0, $0.1 / total) }
      }
    }
    let horizontal = weights(input: image.width, output: width)
    let vertical = weights(input: image.height, output: height)
    var rows = [Double](repeating: 0, count: image.height * width * channels)
    for y in 0..<image.height {
      for x in 0..<width {
        for c in 0..<channels {
          rows[(y * width + x) * channels + c] = horizontal[x].reduce(0) {
            $0 + $1.1 * source[(y * image.width + $1.0) * channels + c]
          }
        }
      }
    }
    var out = [UInt8](repeating: 0, count: width * height * channels)
    for y in 0..<height {
      for i in 0..<(width * channels) {
        let v = vertical[y].reduce(0) { $0 + $1.1 * rows[$1.0 * width * channels + i] }
        out[y * width * channels + i] = UInt8(max(0, min(255, v.rounded())))
      }
    }
    return Image(width: width, height: height, pixelFormat: image.pixelFormat, bytes: out)!
  }
}
