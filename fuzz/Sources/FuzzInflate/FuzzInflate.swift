@_spi(Fuzzing) import ImageCodecs

/// libFuzzer entry point, differential: the input (but its last byte) is raw DEFLATE data, inflated
/// by imgfetch's own inflater (`imc_inflate.c`, the PNG image-data path's) and by zlib's raw inflate.
/// The inflater accepting what zlib refuses, or giving other bytes or another end of the stream, is
/// a crash; giving up is always allowed. The last byte picks how the input is cut (whole, a byte at
/// a time, random pieces) and the output room (unbounded, or 1 to 300 bytes a call).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInflate(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  guard size > 0 else { return 0 }
  let input = Array(UnsafeBufferPointer(start: data, count: size - 1))
  let last = UInt64(data[size - 1])
  let pieces: InflateCheck.Pieces = last % 4 == 0 ? .whole : last % 4 == 1 ? .bytes : .random(seed: last)
  let room = last & 0x80 == 0 ? 1 << 30 : 1 + Int(last % 37) * 8
  let (agrees, _) = InflateCheck.differential(input, pieces: pieces, room: room, capacity: 1 << 20)
  precondition(agrees, "the inflater accepted what zlib did not, or other bytes (pieces \(pieces), room \(room))")
  return 0
}
