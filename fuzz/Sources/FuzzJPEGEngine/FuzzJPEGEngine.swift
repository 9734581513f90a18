import FuzzSupport
@_spi(Fuzzing) import ImageCodecs

/// libFuzzer entry point, differential: every input (SOI forced) is decoded by imgfetch's JPEG
/// engine (`Sources/CodecEngines/JPEG`) and by libjpeg alone (`libjpegOnly`) on every path a file
/// takes (from memory, from a file, validated, streamed in pieces); a different verdict, message,
/// header or pixel is a crash (`FuzzSupport.requireSameOutcome`).
///
/// The input's first byte, which the forced SOI replaces (so mutating it never breaks the file),
/// picks the options: bits 0-1 the pixel format (source, rgba8, gray8, rgb8: the engine's three
/// outputs), bit 2 the scale (1/8 or 1/4, the two the engine takes), bit 3 whether the last piece
/// is appended as the last, bit 4 whether the stream reads the file (as a file's thumbnail does),
/// bits 5-7 the largest piece (see `Streaming`). The engine takes every decode it can
/// (`alwaysUsesJPEGEngine`), also the 4:2:0 baseline ones it leaves to libjpeg while other decodes run.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEGEngine(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  let bytes = [0xFF, 0xD8, 0xFF] + input.dropFirst(min(size, 3))
  let control = Int(input.first ?? 0)
  let format: PixelFormatRequest = [.source, .rgba8, .gray8, .rgb8][control & 3]
  let scale: JPEGScale = control & 4 == 0 ? .eighth : .quarter
  var options = DecodeOptions(
    pixelFormat: format, limits: DecodeLimits(maxPixels: 1 << 22, maxJPEGScans: 64), jpegScale: scale)
  options.alwaysUsesJPEGEngine = true
  var alone = options
  alone.libjpegOnly = true
  let streaming = Streaming(
    choice: control >> 5, count: bytes.count, seed: UInt32(truncatingIfNeeded: bytes.count &* 2_654_435_761),
    lastPiece: control & 8 != 0, readsFile: control & 16 != 0)
  requireSameOutcome(
    bytes, ours: options, alone: alone, library: "libjpeg", streaming: streaming, scratchName: "fuzz-jpeg-engine")
  return 0
}
