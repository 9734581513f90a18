import FuzzSupport
@_spi(Fuzzing) import ImageCodecs

/// libFuzzer entry point: one verdict and the same pixels for a HEIF (HEIC or AVIF) on every path
/// (issue 31). Each input (an `ftyp` box's start forced) is decoded from memory, from a file
/// (`contentsOf:`), validated (what `imgfetch verify` runs) and streamed in random pieces; every
/// path must give the memory decode's verdict: an image of the same size, layout, orientation and
/// colour space, or the same error kind and message. Not the same pixels: on a damaged HEVC stream
/// Debian's libde265 1.0.11 (through libheif 1.15) reads uninitialised memory (valgrind shows it on
/// FuzzHEIF's first finding, Fixtures/regressions/FuzzHEIF), so two decodes of the same bytes in one
/// process can differ in their pixels; the pixels of every fixture are held to heif-convert's by
/// HEIFReferenceTests instead. libheif is not instrumented: what this holds is imgfetch's side (the
/// whole-file gathering, the header, the limits, the conversion of libheif's output) with
/// libheif's answers to hostile files fed through it.
///
/// The input's first byte, which the forced box size replaces (0: a small box), picks the options:
/// bits 0-2 the pixel format (source, rgba8, rgb8, gray8, native, modulo 5), bit 3 the major brand
/// (`heic` or `avif`, written over bytes 8-11 unless bit 4 is set, so mutations of the brand itself
/// are reached too), bit 5 whether the last piece is appended as the last, bits 6-7 the largest
/// piece (1, 16, 700 bytes or half the input; see `Streaming`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  guard size >= 12 else { return 0 }
  let control = Int(input[0])
  var bytes = Array(input)
  bytes[0] = 0
  bytes.replaceSubrange(4..<8, with: Array("ftyp".utf8))
  if control & 0x10 == 0 { bytes.replaceSubrange(8..<12, with: Array((control & 8 == 0 ? "heic" : "avif").utf8)) }
  let formats: [PixelFormatRequest] = [.source, .rgba8, .rgb8, .gray8, .native]
  let limits = DecodeLimits(maxPixels: 1 << 22, maxChunkBytes: 1 << 20)
  let options = DecodeOptions(pixelFormat: formats[(control & 7) % 5], limits: limits)
  // Verdicts, not pixels (libde265, above).
  requireOneOutcomeOnEveryPath(
    bytes, options: options, streaming: Streaming(control: control, count: bytes.count), scratchName: "fuzz-heif",
    comparesPixels: false)
  return 0
}
