import CFixtureSupport

/// SHA-256 (FIPS 180-4), for comparing decoded pixels with reference hashes. The toolchain on
/// Linux has no CryptoKit, and tests must not depend on outside packages. The rounds are in C
/// (`Tests/CFixtureSupport`): debug builds compile this target at -Onone, where a Swift loop took
/// about 20 times longer over the megapixel fixtures.
public enum SHA256 {
  /// The hex digest of `bytes`.
  /// - Parameter bytes: The message.
  /// - Returns: 64 lower-case hex digits.
  public static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
    var digest = [UInt8](repeating: 0, count: 32)
    digest.withUnsafeMutableBufferPointer { out in
      cfs_sha256(bytes.baseAddress, bytes.count, out.baseAddress)
    }
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(64)
    for byte in digest {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }

  /// The hex digest of `bytes`.
  /// - Parameter bytes: The message.
  /// - Returns: 64 lower-case hex digits.
  public static func hex(_ bytes: [UInt8]) -> String { bytes.withUnsafeBytes { hex($0) } }
}
