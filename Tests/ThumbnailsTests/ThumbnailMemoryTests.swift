import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// Issue 14.3: a thumbnail's decode feeds the shrink row by row, so the whole process's peak memory
/// follows the thumbnail, not the source (it used to hold the whole decoded image: 259 MiB for
/// `--thumbnail 256` of a 9000x9000 PNG).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(30))) struct ThumbnailMemoryTests {
  @Test func aThumbnailOfA9000SquarePNGStaysUnder48MiB() throws {
    try TestImages.withTemporaryDirectory { directory in
      let path = directory + "/rgb-9000.png"
      try LargeImages.writeRGBPNG(to: path)  // 243 MB of RGB pixels from a few-MB zlib stream
      let run = try runImgfetchMeasured(["--thumbnail", "256", path])
      #expect(run.result.status == 0, "\(run.result.stderrText)")
      #expect(run.peakResidentBytes <= 48 << 20, "peak RSS \(run.peakResidentBytes >> 20) MiB")
      let thumbnail = try ImageDecoder.decode(contentsOf: path + ".thumb-256.jpg")
      #expect((thumbnail.width, thumbnail.height) == (256, 256))
    }
  }

  /// Issue 14.4: a batch holds `--jobs` working sets, not `--jobs` decoded images. Four 5000x5000
  /// PNGs (75 MB of pixels each, 300 MB for four whole decodes) thumbnailed four at a time.
  @Test func aParallelBatchHoldsJobsWorkingSetsNotJobsImages() throws {
    try TestImages.withTemporaryDirectory { directory in
      let original = directory + "/rgb-5000.png"
      try LargeImages.writeRGBPNG(to: original, side: 5000)
      let files = try (1...4).map { n in
        let path = directory + "/photo-\(n).png"
        try FileManager.default.linkItem(atPath: original, toPath: path)
        return path
      }
      let run = try runImgfetchMeasured(["--thumbnail", "256", "--jobs", "4"] + files)
      #expect(run.result.status == 0, "\(run.result.stderrText)")
      // One item alone peaks at about 16 MiB (most of it the process itself); under
      // AddressSanitizer its shadow and quarantine come on top for each of the four.
      let limit = Fixtures.imgfetchIsAddressSanitized ? 160 << 20 : 64 << 20
      #expect(run.peakResidentBytes <= limit, "peak RSS \(run.peakResidentBytes >> 20) MiB")
      for file in files {
        let thumbnail = try ImageDecoder.decode(contentsOf: file + ".thumb-256.jpg")
        #expect((thumbnail.width, thumbnail.height) == (256, 256))
      }
    }
  }

  @Test func aThumbnailOfA30MegapixelJPEGStaysUnder20MiB() throws {
    try TestImages.withTemporaryDirectory { directory in
      let path = directory + "/photo-30mp.jpg"
      // 6336 x 4752 baseline 4:2:0, encoded row-pattern by row-pattern (fast even in a debug build).
      var image = try Image(width: 6336, height: 4752, pixelFormat: .rgb8)
      let stride = image.bytesPerRow
      try image.withUnsafeMutableBytes { bytes in
        for x in 0..<stride { bytes[x] = UInt8(truncatingIfNeeded: x * 7 / 3) }
        for y in 1..<4752 {
          let shift = (y * 3) % stride
          (bytes.baseAddress! + y * stride).copyMemory(from: bytes.baseAddress! + shift, byteCount: stride - shift)
          (bytes.baseAddress! + y * stride + stride - shift).copyMemory(from: bytes.baseAddress!, byteCount: shift)
        }
      }
      try ImageEncoder.write(image, as: .jpeg(quality: 90), to: path)
      let run = try runImgfetchMeasured(["--thumbnail", "256", path])
      #expect(run.result.status == 0, "\(run.result.stderrText)")
      // Under AddressSanitizer (scripts/sanitize) the shadow memory and the quarantine of freed
      // blocks come on top (48 MiB seen); 64 MiB still tells a streamed thumbnail from a full
      // decode (90 MB of pixels).
      let limit = Fixtures.imgfetchIsAddressSanitized ? 64 << 20 : 20 << 20
      #expect(run.peakResidentBytes <= limit, "peak RSS \(run.peakResidentBytes >> 20) MiB")
      let thumbnail = try ImageDecoder.decode(contentsOf: path + ".thumb-256.jpg")
      #expect((thumbnail.width, thumbnail.height) == (256, 192))
    }
  }
}
