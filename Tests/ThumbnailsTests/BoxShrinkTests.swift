import FixtureSupport
import Foundation
import ImageCodecs
import Testing

@testable import Thumbnails

/// The integer box shrink at the largest factors a plan can pick: sums must never wrap.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct BoxShrinkTests {
  /// A `width` x `height` RGBA image of one colour, filled row by row (fast even in a debug build).
  static func solid(width: Int, height: Int, rgba: [UInt8]) throws -> Image {
    var image = try Image(width: width, height: height, pixelFormat: .rgba8)
    let stride = image.bytesPerRow
    try image.withUnsafeMutableBytes { bytes in
      for x in 0..<width { for c in 0..<4 { bytes[x * 4 + c] = rgba[c] } }
      for y in 1..<height {
        (bytes.baseAddress! + y * stride).copyMemory(from: bytes.baseAddress!, byteCount: stride)
      }
    }
    return image
  }

  /// The issue's case, as a user meets it: a 4096x4096 opaque red PNG thumbnailed to 4 pixels
  /// (box factor 512) came out with alpha 62.
  @Test func anOpaqueRedSquareStaysOpaqueRedAtFourPixels() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = "\(directory)/red.png"
      try ImageEncoder.write(try Self.solid(width: 4096, height: 4096, rgba: [255, 0, 0, 255]), as: .png(), to: source)
      let run = try runImgfetch(["--thumbnail", "4", "--format", "png", "--json", source])
      #expect(run.status == 0, "\(run.stderrText)")
      let files = TestImages.files(in: directory).filter { $0.contains(".thumb-4.") }
      #expect(files.count == 1)
      let thumbnail = try ImageDecoder.decode(contentsOf: "\(directory)/\(files[0])")
      #expect((thumbnail.width, thumbnail.height, thumbnail.pixelFormat) == (4, 4, .rgba8))
      #expect(thumbnail.bytes == [UInt8]((0..<16).flatMap { _ in [255, 0, 0, 255] }))
    }
  }

  /// Just past the first factor whose sums wrapped (258 x 258 premultiplied samples pass 2^32).
  @Test(arguments: [(516, [UInt8](arrayLiteral: 255, 0, 0, 255)), (520, [10, 200, 30, 128]), (600, [0, 0, 255, 1])])
  func aSingleBlockPastTheOldOverflowKeepsItsColour(side: Int, rgba: [UInt8]) throws {
    let plan = ThumbnailPlan(
      sourceWidth: side, sourceHeight: side, orientation: .up, format: .png,
      options: ThumbnailOptions(size: .longestSide(1)))
    #expect(plan.horizontal.boxFactor * plan.vertical.boxFactor > 66_052)
    let thumbnail = try Thumbnailer(options: ThumbnailOptions(size: .longestSide(1))).image(
      from: try ImageEncoder.encode(try Self.solid(width: side, height: side, rgba: rgba), as: .png()))
    // Alpha exactly; colour within the one level an 8-bit premultiplied round trip can lose.
    #expect(thumbnail.bytes[3] == rgba[3])
    #expect(zip(thumbnail.bytes, rgba).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "\(thumbnail.bytes)")
  }

  /// The largest factors the plan can choose under the default limits: half the longest side on
  /// one axis (65,500 x 2, either way round) and about half of each side of a 100-megapixel square
  /// (10,000 x 10,000 at 1 pixel: 5,000 x 5,000 blocks). A block's rows are fed straight to the
  /// shrinker, which is what the decoder feeds it.
  @Test(arguments: [(65_500, 2, 32_750, 1), (2, 65_500, 1, 32_750), (10_000, 10_000, 5_000, 5_000)])
  func theLargestFactorsThePlanCanChooseAverageExactly(width: Int, height: Int, factorX: Int, factorY: Int) throws {
    let plan = ThumbnailPlan(
      sourceWidth: width, sourceHeight: height, orientation: .up, format: .png,
      options: ThumbnailOptions(size: .longestSide(1)))
    #expect((plan.horizontal.boxFactor, plan.vertical.boxFactor) == (factorX, factorY))
    for (format, pixel, expected) in [
      (PixelFormat.rgba8, [UInt8](arrayLiteral: 255, 255, 255, 255), [UInt8](arrayLiteral: 255, 255, 255, 255)),
      (.rgba8, [200, 100, 50, 128], [100, 50, 25, 128]),  // premultiplied: colour x 128/255
      (.grayAlpha8, [255, 255], [255, 255]),
      (.gray8, [255], [255]),
    ] {
      let shrinker = try BoxShrinker(
        width: factorX, pixelFormat: format, factorX: factorX, factorY: factorY, premultiplying: true)
      let row = [UInt8]((0..<factorX).flatMap { _ in pixel })
      var out = [UInt8](repeating: 0, count: format.channelCount)
      var complete = false
      row.withUnsafeBufferPointer { row in
        for _ in 0..<factorY { complete = shrinker.add(row.baseAddress!) }
      }
      #expect(complete)
      out.withUnsafeMutableBufferPointer { shrinker.emitRow(into: $0.baseAddress!) }
      #expect(out == expected, "\(format) \(pixel) at \(factorX)x\(factorY)")
    }
  }

  /// Blocks taller than 66,052 rows (possible with raised limits) carry their column sums into 64
  /// bits before they could wrap; the partial last block averages only what it covers.
  @Test func veryTallBlocksCarryTheirSums() throws {
    let shrinker = try BoxShrinker(width: 3, pixelFormat: .rgba8, factorX: 2, factorY: 150_000, premultiplying: true)
    let row: [UInt8] = [255, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 255]
    var completed = 0
    row.withUnsafeBufferPointer { row in
      for _ in 0..<140_000 where shrinker.add(row.baseAddress!) { completed += 1 }
    }
    let pending = shrinker.hasPendingRows
    #expect(completed == 0 && pending)
    var out = [UInt8](repeating: 0, count: 8)
    out.withUnsafeMutableBufferPointer { shrinker.emitRow(into: $0.baseAddress!) }
    #expect(out == [255, 0, 0, 255, 0, 0, 255, 255])
  }
}

/// The resampler's buffers: running out of memory is an error for that image, never an abort.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ResamplerMemoryTests {

  /// A 100x100 RGBA PNG upscaled to 10,000 x 10,000 (at the 100-megapixel limit) under 384 MiB of
  /// address space: the decode fits, the 400 MB result does not. An AddressSanitizer build, which
  /// cannot run under an address-space limit, gets ASan's cap on one allocation instead (256 MiB).
  @Test func anUpscaleTooLargeForMemoryIsOutOfMemoryNotACrash() throws {
    try TestImages.withTemporaryDirectory { directory in
      let source = "\(directory)/small.png"
      try ImageEncoder.write(
        try BoxShrinkTests.solid(width: 100, height: 100, rgba: [10, 200, 30, 255]), as: .png(), to: source)
      let logs = try Fixtures.temporaryDirectory()
      defer { try? FileManager.default.removeItem(at: logs) }
      let command = Fixtures.imgfetchUnderMemoryLimit(
        ["--thumbnail", "10000", "--upscale", source], addressSpace: 384 << 20, largestAllocation: 256 << 20,
        logDirectory: logs.path)
      let run = try runProcess(command.executable, command.arguments, environment: command.environment)
      #expect(run.status == 4, "\(run.stderrText)")
      #expect(run.stderrText.hasPrefix("imgfetch: \(source): out of memory"))
      #expect(run.stderrText.contains("cannot allocate 400000000 bytes"))
      #expect(run.stderrText.split(separator: "\n").count == 1)
      #expect(TestImages.files(in: directory) == ["small.png"])
    }
  }

  @Test func aBufferWhoseSizeOverflowsIsOutOfMemory() throws {
    #expect(throws: DecodeError.self) { try ColumnMajorRows(columns: Int.max / 4, rows: 1_000, channels: 4) }
    do {
      _ = try Image(width: 1 << 40, height: 1 << 10, pixelFormat: .rgba8)
      Issue.record("a 2^50-pixel image was allocated")
    } catch {
      #expect(error.kind == .outOfMemory)
    }
  }
}
