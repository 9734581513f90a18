import FuzzSupport
@_spi(Fuzzing) import ImageCodecs

/// libFuzzer entry point: one verdict and the same pixels for a WebP on every path (issue 31). Each
/// input (WebP's signature forced) is decoded from memory, from a file (`contentsOf:`), validated
/// (what `imgfetch verify` runs) and streamed in random pieces; every path must give the memory
/// decode's outcome: the same pixels (size, format, orientation, every byte) or the same error kind
/// and message. A scaled decode (libwebp's scaled output) must keep the full-size verdict.
///
/// The input's first byte, which the forced signature replaces (so mutating it never breaks the
/// file), picks the options: bits 0-2 the pixel format (source, rgba8, rgb8, gray8, native, modulo
/// 5), bits 3-4 the scale (full, 1/2, 1/4, 1/8), bit 5 whether the last piece is appended as the
/// last, bits 6-7 the largest piece (1, 16, 700 bytes or half the input; see `Streaming`). The RIFF size is made the input's own unless byte 4's low
/// bit is set, so that mutations reach the chunks and the bitstreams rather than stopping at a
/// truncation.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  guard size >= 12 else { return 0 }
  let control = Int(input[0])
  var bytes = Array(input)
  bytes.replaceSubrange(0..<4, with: Array("RIFF".utf8))
  bytes.replaceSubrange(8..<12, with: Array("WEBP".utf8))
  if input[4] & 1 == 0 {
    let riff = UInt32(bytes.count - 8)
    for i in 0..<4 { bytes[4 + i] = UInt8(truncatingIfNeeded: riff >> (8 * i)) }
  }
  let formats: [PixelFormatRequest] = [.source, .rgba8, .rgb8, .gray8, .native]
  let scales: [JPEGScale] = [.full, .half, .quarter, .eighth]
  let limits = DecodeLimits(maxPixels: 1 << 20, maxChunkBytes: 1 << 20, maxFrames: 64)
  let options = DecodeOptions(
    pixelFormat: formats[(control & 7) % 5], limits: limits, jpegScale: scales[(control >> 3) & 3])
  let memory = requireOneOutcomeOnEveryPath(
    bytes, options: options, streaming: Streaming(control: control, count: bytes.count), scratchName: "fuzz-webp")
  // Scaling changes the output, not the verdict.
  if options.jpegScale != .full {
    var full = options
    full.jpegScale = .full
    let whole = outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: full) }
    precondition(
      whole.errorText == memory.errorText, "at \(options.jpegScale.eighths)/8: \(memory), full size: \(whole)")
  }
  return 0
}
