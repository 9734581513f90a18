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
  let streaming = Streaming(
    choice: [0, 2, 4, 6][(control >> 6) & 3], count: bytes.count,
    seed: UInt32(truncatingIfNeeded: bytes.count &* 2_654_435_761), lastPiece: control & 0x20 != 0, readsFile: false)
  let file = scratchFile(bytes, name: "fuzz-gif")

  let memory = outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: options) }
  func same(_ path: String, _ other: Outcome) {
    precondition(other == memory, "\(path): \(other) != from memory \(memory)")
  }
  same("from a file", outcome { () throws(DecodeError) in try ImageDecoder.decode(contentsOf: file, options: options) })
  same(
    "streamed in \(streaming)",
    outcome { () throws(DecodeError) in try stream(bytes, streaming, options: options, file: file) })
  let validated = validation { () throws(DecodeError) in try ImageDecoder.validate(contentsOf: file, options: options) }
  switch (memory, validated) {
  case (.image, .header), (.error, .error):
    precondition(memory.errorText == validated.errorText, "validated: \(validated) != \(memory)")
  default: preconditionFailure("validated: \(validated), from memory: \(memory)")
  }
  if options.jpegScale != .full {
    var full = options
    full.jpegScale = .full
    same("at full size", outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: full) })
  }
  return 0
}

extension Outcome {
  /// The error's kind and message, or nil for an accepted input.
  var errorText: String? {
    if case .error(let text) = self { return text }
    return nil
  }
}
