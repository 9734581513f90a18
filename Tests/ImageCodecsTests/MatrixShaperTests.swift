import CLCMS2Adapter
import FixtureSupport
import Foundation
import Testing

/// Between matrix-shaper RGB profiles (every phone's Display P3, Adobe RGB, ProPhoto, a PNG's
/// gAMA/cHRM), conversions to sRGB run on tables of imgfetch's own made from the profiles' curves
/// and colorants, because lcms2 takes longer to build its 8-bit transform than a thumbnail takes to
/// convert. lcms2's own transform is the oracle: every colour within one code value of it.
@Suite(.timeLimit(.minutes(10))) struct MatrixShaperTests {
  /// Every (red, green) pair with a blue that walks the range: 65,536 colours.
  static let grid: [UInt8] = {
    var colours: [UInt8] = []
    for red in 0..<256 {
      for green in 0..<256 {
        let blue: Int = (red * 7 + green * 13) & 255
        colours += [UInt8(red), UInt8(green), UInt8(blue)]
      }
    }
    return colours
  }()

  static func profile(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: ViewedImage.colorFixture(name))))
  }

  /// A transform of `profile` to sRGB, `layout` to `layout`, built the given way.
  static func transform(_ profile: [UInt8], _ layout: Int32, matrixShaper: Bool) throws -> OpaquePointer {
    var message = [CChar](repeating: 0, count: 200)
    let made = profile.withUnsafeBufferPointer {
      imc_transform_create_choosing(
        $0.baseAddress, $0.count, layout, layout, matrixShaper ? 1 : 0, &message, message.count)
    }
    return try #require(made, "\(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
  }

  static func convert(_ pixels: [UInt8], _ transform: OpaquePointer, channels: Int) -> [UInt8] {
    var out = pixels
    let width = UInt32(256)
    let rows = UInt32(pixels.count / channels / 256)
    pixels.withUnsafeBufferPointer { input in
      out.withUnsafeMutableBufferPointer { output in
        imc_transform_rows(
          transform, input.baseAddress, 256 * channels, output.baseAddress, 256 * channels, width, rows)
      }
    }
    return out
  }

  /// The largest difference of two conversions, and how many samples differ.
  static func compare(_ profile: [UInt8], channels: Int) throws -> (largest: Int, differing: Int) {
    let layout = Int32(channels == 4 ? IMC_PIXELS_RGBA8 : IMC_PIXELS_RGB8)
    let own = try transform(profile, layout, matrixShaper: true)
    let lcms = try transform(profile, layout, matrixShaper: false)
    defer {
      imc_transform_destroy(own)
      imc_transform_destroy(lcms)
    }
    #expect(imc_transform_is_matrix_shaper(own) == 1 && imc_transform_is_matrix_shaper(lcms) == 0)
    var input = grid
    if channels == 4 {
      input = []
      for start in stride(from: 0, to: grid.count, by: 3) {
        let alpha = UInt8((start / 3) & 255)
        input += [grid[start], grid[start + 1], grid[start + 2], alpha]
      }
    }
    let a = convert(input, own, channels: channels)
    let b = convert(input, lcms, channels: channels)
    if channels == 4 {
      #expect(stride(from: 3, to: a.count, by: 4).allSatisfy { a[$0] == input[$0] }, "alpha is copied")
    }
    let differences = zip(a, b).map { abs(Int($0) - Int($1)) }
    return (differences.max() ?? 0, differences.filter { $0 > 0 }.count)
  }

  @Test(arguments: ["display-p3.icc", "adobe-rgb.icc", "prophoto.icc"])
  func anEmbeddedProfileConvertsWithinOneOfLCMS2(name: String) throws {
    for channels in [3, 4] {
      let (largest, differing) = try Self.compare(try Self.profile(name), channels: channels)
      #expect(largest <= 1, "\(name), \(channels) channels")
      #expect(differing < Self.grid.count / 20, "\(name): \(differing) samples differ by one")
    }
  }

  @Test func aProfileMadeFromGammaAndChromaticitiesConvertsWithinOneOfLCMS2() throws {
    // Adobe RGB's primaries and white with a gamma of 1/2.2, as a PNG's gAMA and cHRM say.
    let chromaticities = [0.3127, 0.3290, 0.64, 0.33, 0.21, 0.71, 0.15, 0.06]
    var bytes: UnsafeMutablePointer<UInt8>?
    let length = chromaticities.withUnsafeBufferPointer {
      imc_profile_from_gamma(Int32(IMC_MODEL_RGB), 1 / 2.2, $0.baseAddress, &bytes)
    }
    let made = try #require(bytes)
    defer { imc_lcms_free(made) }
    let (largest, _) = try Self.compare(Array(UnsafeBufferPointer(start: made, count: length)), channels: 3)
    #expect(largest <= 1)
  }

  @Test func otherProfilesAndLayoutsAreLCMS2s() throws {
    // A CMYK profile, and an RGB profile read as 8-bit RGB into RGBA: lcms2's transforms.
    for (name, input, output) in [
      ("cmyk.icc", IMC_PIXELS_CMYK8, IMC_PIXELS_RGB8), ("display-p3.icc", IMC_PIXELS_RGB8, IMC_PIXELS_RGBA8),
    ] {
      var message = [CChar](repeating: 0, count: 200)
      let profile = try Self.profile(name)
      let made = try #require(
        profile.withUnsafeBufferPointer {
          imc_transform_create($0.baseAddress, $0.count, Int32(input), Int32(output), &message, message.count)
        })
      #expect(imc_transform_is_matrix_shaper(made) == 0, "\(name)")
      imc_transform_destroy(made)
    }
  }
}
