import FuzzSupport
@_spi(Fuzzing) import ImageCodecs

/// libFuzzer entry point: one verdict and the same pixels for a GIF on every path (issue 31). Each
/// input (its first six bytes made `GIF89a`) is decoded from memory, from a file (`contentsOf:`),
/// validated (what `imgfetch verify` runs, which decodes into a scratch line, not an image) and
/// streamed in random pieces; every path must give the memory decode's outcome: the same pixels
/// (size, format, every byte) or the same error kind and message. A GIF is never shrunk on load: a
/// scaled decode must give the full-size outcome itself.
///
/// The input's first byte, which the forced signature replaces (so mutating it never breaks the
/// file), picks the options: bits 0-2 the pixel format (source, rgba8, rgb8, gray8, native, modulo
/// 5), bits 3-4 the scale (full, 1/2, 1/4, 1/8), bit 5 whether the last piece is appended as the
/// last, bits 6-7 the largest piece (1, 16, 700 bytes or half the input; see `Streaming`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  guard size >= 6 else { return 0 }
  let control = Int(input[0])
  var bytes = Array(input)
  bytes.replaceSubrange(0..<6, with: Array("GIF89a".utf8))
  let formats: [PixelFormatRequest] = [.source, .rgba8, .rgb8, .gray8, .native]
  let scales: [JPEGScale] = [.full, .half, .quarter, .eighth]
  let limits = DecodeLimits(maxPixels: 1 << 20, maxFrames: 64)
  let options = DecodeOptions(
    pixelFormat: formats[(control & 7) % 5], limits: limits, jpegScale: scales[(control >> 3) & 3])
  let memory = requireOneOutcomeOnEveryPath(
    bytes, options: options, streaming: Streaming(control: control, count: bytes.count), scratchName: "fuzz-gif")
  if options.jpegScale != .full {
    var full = options
    full.jpegScale = .full
    let whole = outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: full) }
    precondition(whole == memory, "at \(options.jpegScale.eighths)/8: \(memory), full size: \(whole)")
  }
  return 0
}
