import Foundation

/// Images too large to keep in `Fixtures/`, made on the fly for the peak-memory tests (which run
/// the CLI through ``runImgfetchMeasured(_:environment:)``).
public enum LargeImages {
  /// The side of the default RGB PNG: 9000x9000, 243 MB of pixels.
  public static let rgbPNGSide = 9000

  /// A `side`-square 8-bit RGB PNG (a gradient per row) from a small zlib stream (a few MB for
  /// 9000x9000), written by Python's zlib (fast, and independent of the libpng under test).
  private static func rgbPNGScript(side: Int) -> String {
    """
    import struct, sys, zlib
    def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    z = zlib.compressobj(1)
    parts = []
    for y in range(\(side)):
        parts.append(z.compress(bytes([0]) + bytes([(y + x) & 255 for x in range(256)]) * \(side * 3 / 256) + bytes(\(side * 3 % 256))))
    parts.append(z.flush())
    ihdr = struct.pack(">IIBBBBB", \(side), \(side), 8, 2, 0, 0, 0)
    sig = bytes([0x89]) + b"PNG" + bytes([13, 10, 26, 10])
    open(sys.argv[1], "wb").write(sig + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b""))
    """
  }

  /// Writes a `side`-square RGB PNG to `path`.
  /// - Parameters:
  ///   - path: Where to write it.
  ///   - side: Width and height in pixels (default ``rgbPNGSide``).
  /// - Throws: When Python fails (its standard error is in the message).
  public static func writeRGBPNG(to path: String, side: Int = rgbPNGSide) throws {
    let result = try runProcess("/usr/bin/python3", ["-c", rgbPNGScript(side: side), path])
    guard result.status == 0 else { throw GenerationFailed(message: result.stderrText) }
  }

  /// The Python command that writes a `side`-square PNG whose pixels are all zero, from a small
  /// zlib stream (level 9: 800 MB of 16-bit RGBA rows from about 780 KB), to `path`. Run it with the
  /// runner the test needs (``runProcess(_:_:environment:limit:)`` or, from async tests,
  /// `runProcessOffThePool`).
  /// - Parameters:
  ///   - path: Where to write it.
  ///   - side: Width and height in pixels.
  ///   - bitDepth: 8 or 16.
  ///   - colorType: PNG colour type: 0 gray, 2 RGB, 4 gray+alpha, 6 RGBA.
  /// - Returns: The executable and its arguments.
  public static func zeroPNGCommand(to path: String, side: Int, bitDepth: Int, colorType: Int)
    -> (executable: String, arguments: [String])
  {
    let channels = [0: 1, 2: 3, 4: 2, 6: 4][colorType] ?? 1
    let rowBytes = 1 + side * channels * bitDepth / 8
    let script = """
      import struct, sys, zlib
      def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
      z = zlib.compressobj(9); row = bytes(\(rowBytes))
      idat = b"".join(z.compress(row) for _ in range(\(side))) + z.flush()
      ihdr = struct.pack(">IIBBBBB", \(side), \(side), \(bitDepth), \(colorType), 0, 0, 0)
      sig = bytes([0x89]) + b"PNG" + bytes([13, 10, 26, 10])
      open(sys.argv[1], "wb").write(sig + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b""))
      """
    return ("/usr/bin/python3", ["-c", script, path])
  }

  /// Python could not write the image.
  public struct GenerationFailed: Error, CustomStringConvertible {
    /// Python's standard error.
    public var message: String
    /// The error in one line.
    public var description: String { "cannot make the large test image: \(message)" }
  }
}
