import FuzzSupport
@_spi(Fuzzing) import ImageCodecs

/// libFuzzer entry point, differential: every input (PNG signature forced) is decoded by imgfetch's
/// PNG rows engine (`Sources/CodecEngines/PNGRows`) and by libpng alone (`libpngOnly`) on every path
/// a file takes (from memory, from a file, validated, streamed in pieces); a different verdict,
/// message, header or pixel is a crash (`FuzzSupport.requireSameOutcome`).
///
/// The input's first byte, which the forced signature replaces (so mutating it never breaks the
/// file), picks the options: bits 0-2 the pixel format (source, rgba8, rgb8, gray8, native, modulo
/// 5), bit 3 whether the last piece is appended as the last, bits 4, 5 and 7 the largest piece
/// (see `Streaming`). Unless its bit 6 is set, every whole chunk's CRC is made right first, so that
/// mutations reach zlib, the filters and the chunk order instead of stopping at a CRC (a real PNG's
/// first byte, 0x89, leaves bit 6 clear).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNGRows(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  var bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + input.dropFirst(min(size, 8))
  let control = Int(input.first ?? 0)
  if control & 0x40 == 0 { makeCRCsRight(&bytes) }
  let formats: [PixelFormatRequest] = [.source, .rgba8, .rgb8, .gray8, .native]
  var options = DecodeOptions(pixelFormat: formats[(control & 7) % 5], limits: DecodeLimits(maxPixels: 1 << 16))
  var alone = options
  alone.libpngOnly = true
  options.libpngOnly = false
  let streaming = Streaming(
    choice: (control >> 4) & 3 | (control >> 5) & 4, count: bytes.count,
    seed: UInt32(truncatingIfNeeded: bytes.count &* 2_654_435_761), lastPiece: control & 8 != 0, readsFile: false)
  requireSameOutcome(
    bytes, ours: options, alone: alone, library: "libpng", streaming: streaming, scratchName: "fuzz-png-rows")
  return 0
}

/// Recomputes the CRC of every whole chunk (stopping at a length that runs past the end).
func makeCRCsRight(_ bytes: inout [UInt8]) {
  var at = 8
  while at + 12 <= bytes.count {
    let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
    guard length <= bytes.count - at - 12 else { return }
    var crc = ~UInt32(0)
    for byte in bytes[at + 4..<at + 8 + length] { crc = crcTable[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8) }
    crc = ~crc
    for i in 0..<4 { bytes[at + 8 + length + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
    at += 12 + length
  }
}

/// CRC-32 (PNG's polynomial) of each byte value.
let crcTable: [UInt32] = (0..<256).map { (value: Int) -> UInt32 in
  var crc = UInt32(value)
  for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
  return crc
}
