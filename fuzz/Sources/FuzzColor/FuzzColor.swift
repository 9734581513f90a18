import Foundation
import ImageCodecs

/// libFuzzer entry point: arbitrary bytes as the ICC profile of a real JPEG (the input's length
/// modulo 3 picks an RGB, a gray or a CMYK one from Fixtures/color; the seeds are the .icc files
/// there), cut into APP2 ICC_PROFILE segments. The header is
/// probed (lcms2 judges the profile) and the image decoded converted to sRGB (lcms2 builds and runs a
/// transform, the CMYK one inside the decoder): a hostile profile must be ignored or used, never crash,
/// leak or allocate past the limits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzColor(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let base = ColorBases.all[size % ColorBases.all.count]
  let profile = Array(UnsafeBufferPointer(start: data, count: size))
  let file = ColorBases.withProfile(base, profile)
  if let header = try? ImageDecoder.probe(file) {
    precondition(header.colorSpace.iccProfile == nil || header.colorSpace.ignoredProfile == nil)
    _ = try? ImageDecoder.decode(file, options: DecodeOptions(jpegScale: .eighth, colorSpace: .sRGB))
  }
  return 0
}

/// The JPEGs the profiles go into, without their own APP2 segments.
enum ColorBases {
  static let all: [[UInt8]] = ["display-p3.jpg", "gray-gamma18.jpg", "cmyk.jpg"].map { name in
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
      "../../../Fixtures/color/\(name)")
    return withProfile([UInt8](try! Data(contentsOf: url)), [])
  }

  /// `jpeg` with its APP2 segments replaced by `profile` in segments of at most 65,000 bytes.
  static func withProfile(_ jpeg: [UInt8], _ profile: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0xFF, 0xD8]
    let parts = stride(from: 0, to: profile.count, by: 65_000).map { Array(profile[$0..<min(profile.count, $0 + 65_000)]) }
    for (index, part) in parts.enumerated() {
      let data = Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(parts.count)] + part
      out += [0xFF, 0xE2, UInt8((data.count + 2) >> 8), UInt8((data.count + 2) & 0xFF)] + data
    }
    var at = 2
    while at + 4 <= jpeg.count, jpeg[at] == 0xFF, jpeg[at + 1] != 0xDA {
      let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
      if jpeg[at + 1] != 0xE2 { out += jpeg[at..<min(jpeg.count, at + 2 + length)] }
      at += 2 + length
    }
    return out + jpeg[min(at, jpeg.count)...]
  }
}
