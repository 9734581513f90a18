import ImageCodecs

/// libFuzzer entry point: every input is decoded as a PNG (the signature is forced so the fuzzer
/// spends its time inside libpng) once, strictly to RGBA8 or leniently to the native format, chosen
/// by the input's last byte. The cap (64 Ki pixels) keeps an execution in milliseconds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  let bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + input.dropFirst(min(size, 8))
  let limits = DecodeLimits(maxPixels: 1 << 16, maxJPEGScans: 64)
  let options =
    (input.last ?? 0) & 1 == 0
    ? DecodeOptions(pixelFormat: .rgba8, limits: limits)
    : DecodeOptions(pixelFormat: .native, limits: limits, strictness: .lenient)
  if let image = try? ImageDecoder.decode(bytes, options: options) {
    precondition(image.byteCount == image.width * image.height * image.pixelFormat.bytesPerPixel)
  }
  return 0
}
