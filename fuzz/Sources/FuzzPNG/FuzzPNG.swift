import ImageCodecs

/// libFuzzer entry point: every input is decoded as a PNG (the signature is forced so the fuzzer
/// spends its time inside libpng), strictly and leniently, in two pixel formats.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
  let bytes = signature + UnsafeBufferPointer(start: data, count: size).dropFirst(min(size, 8))
  let limits = DecodeLimits(maxPixels: 4_000_000)
  for options in [
    DecodeOptions(pixelFormat: .rgba8, limits: limits),
    DecodeOptions(pixelFormat: .native, limits: limits, strictness: .lenient),
  ] {
    if let image = try? ImageDecoder.decode(bytes, options: options) {
      precondition(image.byteCount == image.width * image.height * image.pixelFormat.bytesPerPixel)
    }
  }
  return 0
}
