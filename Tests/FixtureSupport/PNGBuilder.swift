/// Builds PNG files chunk by chunk, for tests that need damaged, hostile or unusual PNGs that no
/// conformance suite ships (huge headers, broken ancillary chunks, decompression bombs).
public struct PNGBuilder {
  /// The bytes so far, starting with the PNG signature.
  public private(set) var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

  /// Starts a PNG.
  public init() {}

  /// Appends a chunk with a correct (or, when `corruptCRC`, a wrong) CRC.
  /// - Parameters:
  ///   - type: Four ASCII letters.
  ///   - data: The chunk data.
  ///   - corruptCRC: Write a CRC that does not match.
  public mutating func chunk(_ type: String, _ data: [UInt8], corruptCRC: Bool = false) {
    let typeBytes = Array(type.utf8)
    bytes += bigEndian(UInt32(data.count))
    bytes += typeBytes
    bytes += data
    let crc = CRC32.checksum(typeBytes + data)
    bytes += bigEndian(corruptCRC ? crc ^ 0xFFFF_FFFF : crc)
  }

  /// Appends only a chunk's length and type, as a file cut short (or lying about its length) has them.
  /// - Parameters:
  ///   - type: Four ASCII letters.
  ///   - claimedLength: The length the header claims.
  public mutating func chunkHeader(_ type: String, claimedLength: UInt32) {
    bytes += bigEndian(claimedLength) + Array(type.utf8)
  }

  /// Appends an IHDR chunk.
  /// - Parameters:
  ///   - width: Width in pixels.
  ///   - height: Height in pixels.
  ///   - bitDepth: Bits per sample.
  ///   - colorType: PNG colour type (0, 2, 3, 4, 6).
  public mutating func header(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 0) {
    chunk("IHDR", bigEndian(width) + bigEndian(height) + [bitDepth, colorType, 0, 0, 0])
  }

  /// Appends IDAT (stored zlib) holding `rows`, each prefixed with filter byte 0, and IEND.
  /// - Parameter rows: Raw scanlines without filter bytes.
  public mutating func pixels(_ rows: [[UInt8]]) {
    chunk("IDAT", Zlib.stored(rows.flatMap { [0] + $0 }))
    chunk("IEND", [])
  }

  /// A complete gray 8-bit PNG of the given rows.
  /// - Parameter rows: Gray values, one array per row.
  /// - Returns: The file's bytes.
  public static func gray(_ rows: [[UInt8]]) -> [UInt8] {
    var png = PNGBuilder()
    png.header(width: UInt32(rows[0].count), height: UInt32(rows.count))
    png.pixels(rows)
    return png.bytes
  }
}

/// PNGs of 41 bytes that claim a huge ancillary chunk: the signature, a 1x1 gray IHDR and one chunk
/// header whose length is `claimedLength` (issue 14.1: they used to cost 2 GiB of memory).
public enum ChunkBombs {
  /// Every ancillary chunk type the PNG specification (and its extensions: APNG, cICP, HDR) names,
  /// and one private chunk no library knows.
  public static let ancillaryTypes = [
    "bKGD", "cHRM", "cICP", "cLLi", "dSIG", "eXIf", "gAMA", "hIST", "iCCP", "iTXt", "mDCv", "oFFs", "pCAL", "pHYs",
    "sBIT", "sCAL", "sPLT", "sRGB", "sTER", "tEXt", "tIME", "tRNS", "zTXt", "acTL", "fcTL", "fdAT", "gIFg", "gIFx",
    "prVt",
  ]
  /// The claimed lengths tested: libpng's maximum, and a quarter of it.
  public static let lengths: [UInt32] = [0x7fff_ffff, 0x3fff_ffff]

  /// The 41-byte file.
  /// - Parameters:
  ///   - type: The chunk type.
  ///   - claimedLength: The length its header claims.
  /// - Returns: The file's bytes.
  public static func file(_ type: String, claimedLength: UInt32) -> [UInt8] {
    var png = PNGBuilder()
    png.header(width: 1, height: 1)
    png.chunkHeader(type, claimedLength: claimedLength)
    return png.bytes
  }
}

/// Big-endian bytes of a 32-bit value.
public func bigEndian(_ value: UInt32) -> [UInt8] {
  [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
}

/// CRC-32 as PNG and gzip use it.
public enum CRC32 {
  private static let table: [UInt32] = (0..<256).map { n in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
  }

  /// The CRC of `data`.
  /// - Parameter data: The bytes.
  /// - Returns: The checksum.
  public static func checksum(_ data: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for byte in data { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
    return c ^ 0xFFFF_FFFF
  }
}

/// zlib streams made of stored (uncompressed) deflate blocks.
public enum Zlib {
  /// Wraps `data` in a valid zlib stream without compressing it.
  /// - Parameter data: The payload.
  /// - Returns: The zlib stream.
  public static func stored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var offset = 0
    repeat {
      let count = min(65535, data.count - offset)
      let last: UInt8 = offset + count == data.count ? 1 : 0
      out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
      out += data[offset..<offset + count]
      offset += count
    } while offset < data.count
    var a: UInt32 = 1
    var b: UInt32 = 0
    for byte in data {
      a = (a + UInt32(byte)) % 65521
      b = (b + a) % 65521
    }
    return out + bigEndian(b << 16 | a)
  }
}
