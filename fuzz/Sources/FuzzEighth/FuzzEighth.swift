import FuzzSupport
import ImageCodecs

/// libFuzzer entry point, differential: every input (SOI forced) is decoded at 1/8 scale by
/// imgfetch's own entropy decoder and by libjpeg alone (`libjpegOnly`), from memory and as a stream
/// cut in two pieces where the input's last byte says; a different verdict, message or pixel is a
/// crash. The pixel format (source, rgba8, gray8) also comes from the last byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEighth(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  let bytes = [0xFF, 0xD8, 0xFF] + input.dropFirst(min(size, 3))
  let last = Int(input.last ?? 0)
  let format: PixelFormatRequest = [.source, .rgba8, .gray8][last % 3]
  var options = DecodeOptions(
    pixelFormat: format, limits: DecodeLimits(maxPixels: 1 << 22, maxJPEGScans: 64), jpegScale: .eighth)
  var reference = options
  reference.libjpegOnly = true
  options.libjpegOnly = false
  requireSameOutcome(
    bytes, ours: options, alone: reference, library: "libjpeg", cut: bytes.count * (last % 16) / 16, lastPiece: true)
  return 0
}
