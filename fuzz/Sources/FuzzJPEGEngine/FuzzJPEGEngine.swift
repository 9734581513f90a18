import FuzzSupport
@_spi(Fuzzing) import ImageCodecs

/// libFuzzer entry point, differential: every input (SOI forced) is decoded by imgfetch's JPEG
/// engine (`Sources/CodecEngines/JPEG`) and by libjpeg alone (`libjpegOnly`), from memory and as a
/// stream cut in two pieces (the second appended as the last, so a sequential scan may be split
/// between two threads); a different verdict, message or pixel is a crash. The input's last byte
/// picks the scale (1/8 or 1/4, the engine's), the pixel format (source, rgba8, gray8) and the cut.
/// Every sequential scan of 64 bytes or more is split between two threads (`smallestSplitScan`),
/// so that fuzzing reaches the split on small inputs; built with ThreadSanitizer
/// (`scripts/fuzz --thread FuzzJPEGEngine`) the two threads are checked for races too.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGEngine(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  let bytes = [0xFF, 0xD8, 0xFF] + input.dropFirst(min(size, 3))
  let last = Int(input.last ?? 0)
  let format: PixelFormatRequest = [.source, .rgba8, .gray8][last % 3]
  let scale: JPEGScale = [.eighth, .quarter][(last / 3) % 2]
  var options = DecodeOptions(
    pixelFormat: format, limits: DecodeLimits(maxPixels: 1 << 22, maxJPEGScans: 64), jpegScale: scale)
  options.smallestSplitScan = 64
  var reference = options
  reference.libjpegOnly = true
  options.libjpegOnly = false
  requireSameOutcome(
    bytes, ours: options, alone: reference, library: "libjpeg", cut: bytes.count * ((last / 6) % 16) / 16,
    lastPiece: true)
  return 0
}
