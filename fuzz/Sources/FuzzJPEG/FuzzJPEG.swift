import ImageCodecs

/// libFuzzer entry point: every input is decoded as a JPEG (SOI forced) once, strictly, leniently
/// or DCT-scaled (down, and up past the stored size), chosen by the input's last byte, so libjpeg's
/// marker parser, entropy decoders and our marker handlers all run and each execution pays for one
/// decode. The caps (64 Ki pixels, 64 scans) keep an execution in milliseconds; limit errors are
/// part of what is fuzzed, and no image handed back may exceed the pixel cap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  let bytes = [0xFF, 0xD8, 0xFF] + input.dropFirst(min(size, 3))
  let limits = DecodeLimits(maxPixels: 1 << 16, maxJPEGScans: 64)
  let variants = [
    DecodeOptions(limits: limits), DecodeOptions(pixelFormat: .rgba8, limits: limits, strictness: .lenient),
    DecodeOptions(pixelFormat: .gray8, limits: limits, jpegScale: .eighth),
    DecodeOptions(limits: limits, jpegScale: .half),
    DecodeOptions(limits: limits, jpegScale: JPEGScale(eighths: 13)),  // above 1: the limit is on the output
  ]
  let options = variants[Int(input.last ?? 0) % variants.count]
  if let image = try? ImageDecoder.decode(bytes, options: options) {
    precondition(image.width > 0 && image.height > 0)
    precondition(image.width * image.height <= 1 << 16)
    _ = try? image.oriented()
  }
  return 0
}
