import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// Issue 14.3: a thumbnail's decode feeds the shrink row by row, so the whole process's peak memory
/// follows the thumbnail, not the source (it used to hold the whole decoded image: 259 MiB for
/// `--thumbnail 256` of a 9000x9000 PNG).
@Suite struct ThumbnailMemoryTests {
  @Test func aThumbnailOfA9000SquarePNGStaysUnder48MiB() throws {
    try TestImages.withTemporaryDirectory { directory in
      let path = directory + "/rgb-9000.png"
      // 243 MB of RGB pixels (a gradient per row) from a few-MB zlib stream.
      let script = """
        import struct, sys, zlib
        def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
        z = zlib.compressobj(1)
        parts = []
        for y in range(9000):
            parts.append(z.compress(bytes([0]) + bytes([(y + x) & 255 for x in range(256)]) * 105 + bytes(120)))
        parts.append(z.flush())
        ihdr = struct.pack(">IIBBBBB", 9000, 9000, 8, 2, 0, 0, 0)
        sig = bytes([0x89]) + b"PNG" + bytes([13, 10, 26, 10])
        open(sys.argv[1], "wb").write(sig + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))
        """
      #expect(try runProcess("/usr/bin/python3", ["-c", script, path]).status == 0)
      let run = try runImgfetchMeasured(["--thumbnail", "256", path])
      #expect(run.result.status == 0, "\(run.result.stderrText)")
      #expect(run.peakResidentBytes <= 48 << 20, "peak RSS \(run.peakResidentBytes >> 20) MiB")
      let thumbnail = try ImageDecoder.decode(contentsOf: path + ".thumb-256.jpg")
      #expect((thumbnail.width, thumbnail.height) == (256, 256))
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
