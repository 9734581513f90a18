import BenchBaseline
import Glibc
import ImageCodecs
import Thumbnails

/// One file's bytes, decoded on demand by imgfetch or by the C baseline, with the buffers that the
/// reused-buffer cases keep between decodes. The file is read once; both sides decode from memory.
final class DecoderPair {
  /// What a reused-buffer case keeps between decodes: imgfetch's Image and the C side's buffer.
  final class Slot {
    var image = try! Image(width: 1, height: 1, pixelFormat: .gray8)  // one byte, made once per file
    var output = cbl_output()
    deinit { cbl_output_release(&output) }
  }

  let bytes: [UInt8]
  let header: ImageHeader
  private let jpeg: OpaquePointer
  private let message = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
  private var slots: [DecodeCase: Slot] = [:]
  private let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(DecoderPair.thumbnailSide)))

  /// The longest side of the thumbnails imgbench times, as `imgfetch --thumbnail 256` makes them.
  static let thumbnailSide = 256

  /// Prepares to decode `bytes`, whose header is `header`.
  /// - Throws: ``BenchError`` when the C baseline cannot be set up.
  init(bytes: [UInt8], header: ImageHeader) throws(BenchError) {
    guard let jpeg = cbl_jpeg_create() else {
      throw BenchError("cannot create a libjpeg decompress object")
    }
    self.bytes = bytes
    self.header = header
    self.jpeg = jpeg
    message.initialize(repeating: 0, count: 256)
    for kase in DecodeCase.cases(for: header.format) { slots[kase] = Slot() }
  }

  deinit {
    cbl_jpeg_destroy(jpeg)
    message.deallocate()
  }

  /// What imgfetch is asked for: JPEG as stored (RGB8 or gray8), PNG always RGBA8, as the C side.
  func options(_ kase: DecodeCase) -> DecodeOptions {
    header.format == .png
      ? DecodeOptions(pixelFormat: .rgba8) : DecodeOptions(jpegScale: kase.jpegScale)
  }

  /// Decodes once on `side` as `kase` says, dropping a fresh result before returning, so that the
  /// release of a fresh buffer is part of the timed work on both sides. Never inlined, so that a
  /// profiler can count exactly this call (`callgrind --toggle-collect='*DecoderPairC6decode*'`).
  @inline(never)
  func decode(_ side: Side, _ kase: DecodeCase) throws {
    switch (side, kase.isFresh) {
    case (.swift, true): _ = try ImageDecoder.decode(bytes, options: options(kase))
    case (.swift, false):
      try ImageDecoder.decode(bytes, options: options(kase), into: &slots[kase]!.image)
    case (.c, true):
      var output = cbl_output()
      defer { cbl_output_release(&output) }
      try decodeC(kase, into: &output)
    case (.c, false): try decodeC(kase, into: &slots[kase]!.output)
    }
  }

  /// Makes the thumbnail in memory (shrink-on-load decode, Lanczos3, orientation; nothing is
  /// encoded or written) and returns it. Never inlined, for the same reason as ``decode(_:_:)``.
  @inline(never)
  @discardableResult
  func thumbnail() throws -> Image {
    try thumbnailer.image(from: bytes)
  }

  /// A fresh decode on each side, compared byte for byte.
  /// - Returns: The imgfetch result and whether the C baseline produced the same pixels.
  func freshPair(_ kase: DecodeCase) throws -> (image: Image, same: Bool) {
    let image = try ImageDecoder.decode(bytes, options: options(kase))
    var output = cbl_output()
    defer { cbl_output_release(&output) }
    try decodeC(kase, into: &output)
    let same =
      Int(output.width) == image.width && Int(output.height) == image.height
      && output.byte_count == image.byteCount
      && image.withUnsafeBytes { memcmp($0.baseAddress!, output.pixels, output.byte_count) == 0 }
    return (image, same)
  }

  private func decodeC(_ kase: DecodeCase, into output: inout cbl_output) throws(BenchError) {
    let status = bytes.withUnsafeBufferPointer { data in
      header.format == .jpeg
        ? cbl_jpeg_decode(
          jpeg, data.baseAddress, data.count, Int32(kase.scaleDenominator), &output, message)
        : cbl_png_decode(data.baseAddress, data.count, &output, message)
    }
    if status != 0 { throw BenchError("C baseline: \(String(cString: message))") }
  }
}

/// A reason the benchmark cannot go on, in words.
struct BenchError: Error, CustomStringConvertible {
  /// What went wrong.
  let description: String
  init(_ description: String) { self.description = description }
}
