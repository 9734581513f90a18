internal import CImageCodecs

/// imgfetch's own raw DEFLATE decoder (`imc_inflate.c`, the PNG image-data path's inflater) beside
/// zlib's raw inflate, on the same bytes: the tests' and the fuzzer's way to hold the inflater to
/// its one rule, never to accept a stream zlib refuses, and to give zlib's bytes for what it accepts.
/// Public only for the fuzz package (`FuzzInflate`), behind `@_spi(Fuzzing)`: not part of the API.
@_spi(Fuzzing) public enum InflateCheck {
  /// How a decoder ended on a stream.
  public enum Outcome: Equatable, Sendable {
    /// The stream ended: its bytes, and the input bytes up to its end.
    case accepted([UInt8], used: Int)
    /// Refused (zlib), or given up (the inflater): damaged, cut short, or not judged.
    case refused
    /// More output than the capacity: not judged.
    case pastCapacity
  }

  /// How input is cut into pieces for the inflater.
  public enum Pieces: Sendable {
    case whole
    case bytes
    case random(seed: UInt64)

    var code: UInt64 {
      switch self {
      case .whole: return 0
      case .bytes: return 1
      case .random(let seed): return seed < 2 ? seed + 2 : seed
      }
    }
  }

  /// The inflater on `input`, fed in `pieces`, into output rooms of `room` bytes.
  public static func inflater(
    _ input: [UInt8], pieces: Pieces = .whole, room: Int = 1 << 30, capacity: Int = 1 << 24
  ) -> Outcome {
    var out = [UInt8](repeating: 0, count: max(capacity, 1))
    var length = 0
    var used = 0
    let result = input.withUnsafeBufferPointer { bytes in
      imc_inflate_check(bytes.baseAddress, bytes.count, pieces.code, room, &out, capacity, &length, &used)
    }
    switch result {
    case 0: return .accepted(Array(out[..<length]), used: used)
    case -1: return .pastCapacity
    default: return .refused
    }
  }

  /// zlib's raw inflate (windowBits -15) on `input`, in one call.
  public static func zlib(_ input: [UInt8], capacity: Int = 1 << 24) -> Outcome {
    var out = [UInt8](repeating: 0, count: max(capacity, 1))
    var length = 0
    var used = 0
    let result = input.withUnsafeBufferPointer { bytes in
      imc_inflate_zlib(bytes.baseAddress, bytes.count, &out, capacity, &length, &used)
    }
    switch result {
    case 1: return .accepted(Array(out[..<length]), used: used)
    case -1: return .pastCapacity
    default: return .refused
    }
  }

  /// Both on `input`, compared in C: `agrees` is false when the inflater accepted what zlib
  /// refused, or gave other bytes or another end. `outcome`: 0 both accepted, 1 both refused, 2 the
  /// inflater gave up on what zlib accepted, 3 past the capacity.
  public static func differential(
    _ input: [UInt8], pieces: Pieces, room: Int, capacity: Int = 1 << 22
  ) -> (agrees: Bool, outcome: Int32) {
    var outcome: Int32 = -1
    let disagrees = input.withUnsafeBufferPointer { bytes in
      imc_inflate_differential(bytes.baseAddress, bytes.count, pieces.code, room, capacity, &outcome)
    }
    return (disagrees == 0, outcome)
  }
}
