import FuzzSupport
import Glibc
import ImageCodecs

/// libFuzzer entry point, differential: every input (PNG signature forced) is decoded by imgfetch's
/// own PNG image-data path and by libpng alone (`libpngOnly`), from memory, as a validation and as a
/// stream cut in two pieces where the input's last byte says; a different verdict, message or pixel
/// is a crash. Unless the last byte's top bit is set, every whole chunk's CRC is made right first,
/// so that mutations reach zlib, the filters and the chunk order instead of stopping at a CRC. The
/// pixel format (source, rgba8, rgb8, gray8, native) also comes from the last byte.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNGRows(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = UnsafeBufferPointer(start: data, count: size)
  var bytes = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + input.dropFirst(min(size, 8))
  let last = Int(input.last ?? 0)
  if last & 0x80 == 0 { makeCRCsRight(&bytes) }
  let formats: [PixelFormatRequest] = [.source, .rgba8, .rgb8, .gray8, .native]
  var options = DecodeOptions(pixelFormat: formats[last % 5], limits: DecodeLimits(maxPixels: 1 << 16))
  var reference = options
  reference.libpngOnly = true
  options.libpngOnly = false
  let file = scratchFile(bytes)
  let validated = verdict { () throws(DecodeError) in _ = try ImageDecoder.validate(contentsOf: file, options: options)
  }
  let validatedAlone = verdict { () throws(DecodeError) in
    _ = try ImageDecoder.validate(contentsOf: file, options: reference)
  }
  precondition(validated == validatedAlone, "validated: \(validated) != libpng alone: \(validatedAlone)")
  requireSameOutcome(
    bytes, ours: options, alone: reference, library: "libpng", cut: bytes.count * ((last >> 3) % 16) / 16,
    lastPiece: false)
  return 0
}

/// `bytes` in this process's scratch file (validation reads a file).
func scratchFile(_ bytes: [UInt8]) -> String {
  let path = "/tmp/fuzz-png-rows-\(getpid()).png"
  let file = fopen(path, "wb")!
  _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
  fclose(file)
  return path
}

func verdict(_ validate: () throws(DecodeError) -> Void) -> String {
  do throws(DecodeError) {
    try validate()
    return "accepted"
  } catch { return "\(error.kind): \(error.message)" }
}

/// Recomputes the CRC of every whole chunk (stopping at a length that runs past the end).
func makeCRCsRight(_ bytes: inout [UInt8]) {
  var at = 8
  while at + 12 <= bytes.count {
    let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
    guard length <= bytes.count - at - 12 else { return }
    var crc = ~UInt32(0)
    for byte in bytes[at + 4..<at + 8 + length] {
      crc ^= UInt32(byte)
      for _ in 0..<8 { crc = crc & 1 == 1 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
    }
    crc = ~crc
    for i in 0..<4 { bytes[at + 8 + length + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
    at += 12 + length
  }
}
