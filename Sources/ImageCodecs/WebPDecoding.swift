internal import CLibWebPAdapter

/// WebP files read back for checks (tests, the benchmark harness): libwebp's decoder to RGBA8, the
/// ``Image/colorSpace`` from the file's `ICCP` chunk. Not a decoder of the public API: ``ImageDecoder``
/// does not read WebP.
package enum WebPDecoding {
  /// The pixels of a WebP file as rgba8 (alpha 255 where it has none), or `nil` when libwebp refuses it.
  package static func decode(_ bytes: [UInt8]) -> Image? {
    var width: Int32 = 0
    var height: Int32 = 0
    guard let pixels = bytes.withUnsafeBufferPointer({ imc_webp_decode_rgba($0.baseAddress, $0.count, &width, &height) })
    else { return nil }
    defer { imc_webp_free(pixels) }
    let count = Int(width) * Int(height) * 4
    guard var image = Image(
      width: Int(width), height: Int(height), pixelFormat: .rgba8,
      bytes: UnsafeBufferPointer(start: pixels, count: count))
    else { return nil }
    if let space = try? ImageMetadata.read(bytes).colorSpace { image.colorSpace = space }
    return image
  }
}
