import Foundation
import ImageCodecs

/// A file's pixels as a colour-managed viewer shows them: decoded, converted to sRGB through the
/// profile it embeds (or taken as sRGB when it has none), alpha ignored.
public enum ViewedImage {
  /// The colour fixtures (`Fixtures/color`).
  public static let colorFixtures = Fixtures.root.appendingPathComponent("Fixtures/color")

  /// A colour fixture's path.
  public static func colorFixture(_ name: String) -> String { colorFixtures.appendingPathComponent(name).path }

  /// The file at `path` as a viewer shows it (JPEG, PNG or WebP).
  public static func picture(at path: String) throws -> ColorDifference.Picture {
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    var image: Image
    if bytes.starts(with: Array("RIFF".utf8)) {
      guard let decoded = WebPDecoding.decode(bytes) else { throw DecodeError(kind: .corrupt, format: .webp, message: "libwebp refused it") }
      image = try decoded.convertedToSRGB()
    } else {
      image = try ImageDecoder.decode(bytes, options: DecodeOptions(pixelFormat: .source, colorSpace: .sRGB))
    }
    return picture(of: image)
  }

  /// An image's samples (8-bit formats).
  public static func picture(of image: Image) -> ColorDifference.Picture {
    ColorDifference.Picture(
      width: image.width, height: image.height, channels: image.pixelFormat.channelCount,
      samples: tightRows(image))
  }

  static func tightRows(_ image: Image) -> [UInt8] {
    let rowBytes = image.width * image.pixelFormat.bytesPerPixel
    return image.withUnsafeBytes { raw in
      (0..<image.height).flatMap { y in Array(raw[(y * image.bytesPerRow)..<(y * image.bytesPerRow + rowBytes)]) }
    }
  }

  /// The photo every colour fixture was made from (`reference.png`).
  public static func reference() throws -> ColorDifference.Picture { try picture(at: colorFixture("reference.png")) }
}
