import ImageCodecs

/// libFuzzer entry point: every input is decoded as a JPEG (SOI forced), strictly, leniently and
/// DCT-scaled, so libjpeg's marker parser, entropy decoders and our marker handlers all run.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let soi: [UInt8] = [0xFF, 0xD8, 0xFF]
  let bytes = soi + UnsafeBufferPointer(start: data, count: size).dropFirst(min(size, 3))
  let limits = DecodeLimits(maxPixels: 4_000_000)
  for options in [
    DecodeOptions(limits: limits), DecodeOptions(pixelFormat: .rgba8, limits: limits, strictness: .lenient),
    DecodeOptions(pixelFormat: .gray8, limits: limits, jpegScale: .eighth),
  ] {
    if let image = try? ImageDecoder.decode(bytes, options: options) {
      precondition(image.width > 0 && image.height > 0)
      _ = image.oriented()
    }
  }
  return 0
}
