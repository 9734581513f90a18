import FoundationEssentials
import ImageCodecs

/// Where a thumbnail's pixels come from: a file or bytes in memory.
protocol ThumbnailSource {
  /// The file's path, for error messages (`nil` for bytes in memory).
  var path: String? { get }
  /// Reads the header.
  func probe() throws(DecodeError) -> ImageHeader
  /// Decodes the pixels.
  func decode(_ options: DecodeOptions) throws(DecodeError) -> Image
  /// The whole encoded file, when it can be had (for decodes that rewrite the stream first).
  func contents() -> [UInt8]?
}

/// An image file.
struct FileSource: ThumbnailSource {
  let file: String
  let limits: DecodeLimits
  var path: String? { file }
  func probe() throws(DecodeError) -> ImageHeader {
    try ImageDecoder.probe(contentsOf: file, limits: limits)
  }
  func decode(_ options: DecodeOptions) throws(DecodeError) -> Image {
    try ImageDecoder.decode(contentsOf: file, options: options)
  }
  func contents() -> [UInt8]? { FileContents.read(file) }
}

/// An image file's bytes in memory.
struct MemorySource<Bytes: ContiguousBytes>: ThumbnailSource {
  let bytes: Bytes
  let limits: DecodeLimits
  var path: String? { nil }
  func probe() throws(DecodeError) -> ImageHeader { try ImageDecoder.probe(bytes, limits: limits) }
  func decode(_ options: DecodeOptions) throws(DecodeError) -> Image {
    try ImageDecoder.decode(bytes, options: options)
  }
  func contents() -> [UInt8]? { bytes.withUnsafeBytes { Array($0) } }
}
