import Foundation
import ImageCodecs

/// Synthetic images and temporary folders for the thumbnail tests.
enum TestImages {
  /// An image whose every pixel is `pixel`.
  static func flat(width: Int, height: Int, pixel: [UInt8], format: PixelFormat) -> Image {
    let bytes = (0..<(width * height)).flatMap { _ in pixel }
    return Image(width: width, height: height, pixelFormat: format, bytes: bytes)!
  }

  /// A smooth colour pattern with some detail (deterministic).
  static func pattern(width: Int, height: Int, format: PixelFormat = .rgb8) -> Image {
    let channels = format.channelCount
    var bytes = [UInt8]()
    bytes.reserveCapacity(width * height * channels)
    for y in 0..<height {
      for x in 0..<width {
        let fx = Double(x) / Double(max(1, width - 1))
        let fy = Double(y) / Double(max(1, height - 1))
        let wave = sin(Double(x) * 0.21) * cos(Double(y) * 0.17)
        let values = [
          128 + 100 * wave, 255 * fx, 255 * fy, 255 * (1 - fx * fy),
        ].map { UInt8(max(0, min(255, $0.rounded()))) }
        for c in 0..<channels { bytes.append(format.hasAlpha && c == channels - 1 ? 255 : values[c]) }
      }
    }
    return Image(width: width, height: height, pixelFormat: format, bytes: bytes)!
  }

  /// An RGBA image: an opaque `colour` square in the middle, surrounded by a `border`-pixel frame
  /// of fully transparent pixels whose (invisible) colour is `hidden`: black is the classic source
  /// of dark halos, another colour shows whether invisible colour bleeds in.
  static func transparentBorder(size: Int, border: Int, colour: [UInt8], hidden: [UInt8] = [0, 0, 0]) -> Image {
    var bytes = [UInt8]()
    for y in 0..<size {
      for x in 0..<size {
        let inside = x >= border && x < size - border && y >= border && y < size - border
        bytes += inside ? colour + [255] : hidden + [0]
      }
    }
    return Image(width: size, height: size, pixelFormat: .rgba8, bytes: bytes)!
  }

  /// A new empty folder, removed when `body` returns.
  static func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let url = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url.path)
  }

  static func makeTemporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnails-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// Writes an image as a file (PNG keeps every format; JPEG for opaque images).
  static func write(_ image: Image, as format: some ImageEncoding, to path: String) throws {
    try ImageEncoder.write(image, as: format, to: path)
  }

  /// The names of the files in a folder, sorted.
  static func files(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
  }
}
