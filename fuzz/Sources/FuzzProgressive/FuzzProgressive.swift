import FuzzSupport
import ImageCodecs

/// libFuzzer entry point, differential: every input (SOI forced) is decoded by imgfetch's own
/// progressive JPEG decoder and by libjpeg alone (`libjpegOnly`), from memory and as a stream cut in
/// two pieces (the second appended as the last) where the input's last byte says; a different
/// verdict, message or pixel is a crash. The DCT scale (1/8, 1/4, 1/2, 1) and the pixel format
/// (source, rgba8, gray8) also come from the last byte. Seeded with the progressive fixtures too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProgressive(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  let bytes = [0xFF, 0xD8, 0xFF] + input.dropFirst(min(size, 3))
  let last = Int(input.last ?? 0)
  let format: PixelFormatRequest = [.source, .rgba8, .gray8][last % 3]
  let scale: JPEGScale = [.eighth, .quarter, .half, .full][(last / 3) % 4]
  var options = DecodeOptions(
    pixelFormat: format, limits: DecodeLimits(maxPixels: 1 << 22, maxJPEGScans: 64), jpegScale: scale)
  var reference = options
  reference.libjpegOnly = true
  options.libjpegOnly = false
  requireSameOutcome(
    bytes, ours: options, alone: reference, library: "libjpeg", cut: bytes.count * ((last / 12) % 16) / 16,
    lastPiece: true)
  return 0
}
