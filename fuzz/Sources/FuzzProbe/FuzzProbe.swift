import ImageCodecs

/// libFuzzer entry point: the header probe on arbitrary bytes (either format, chosen by the input).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProbe(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  if let header = try? ImageDecoder.probe(bytes) {
    precondition(header.width > 0 && header.height > 0)
  }
  return 0
}
