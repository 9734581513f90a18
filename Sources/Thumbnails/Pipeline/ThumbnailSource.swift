import FoundationEssentials
import ImageCodecs
import SystemFiles

/// Where a thumbnail's pixels come from: a file or bytes in memory.
protocol ThumbnailSource {
  /// The file's path, for error messages (`nil` for bytes in memory).
  var path: String? { get }
  /// Reads the header.
  func probe() throws(DecodeError) -> ImageHeader
  /// Decodes the whole image in one call.
  func decode(_ options: DecodeOptions) throws(DecodeError) -> Image
  /// Hands the encoded bytes to `body` in order, a chunk at a time (never the whole file at once
  /// for a file), with whether it is known to be the last chunk (a decoder can then plan for
  /// having every byte: ``/ImageCodecs/StreamingDecoder/appendLast(_:)``). A file source first
  /// calls `opened` with the descriptor it reads (open until the last chunk is handed), so that
  /// the decoder can read that file again rather than whatever its path names by then.
  func forEachChunk(
    opened: (_ descriptor: Int32) -> Void, _ body: (UnsafeRawBufferPointer, _ isLast: Bool) throws(ThumbnailError) -> Void
  ) throws(ThumbnailError)
  /// The whole encoded file, when it can be had (for decodes that rewrite the stream first).
  func contents() -> [UInt8]?
}

/// How many bytes a source hands out at a time.
let thumbnailChunkBytes = 256 << 10

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
  func forEachChunk(
    opened: (_ descriptor: Int32) -> Void, _ body: (UnsafeRawBufferPointer, _ isLast: Bool) throws(ThumbnailError) -> Void
  ) throws(ThumbnailError) {
    let readable: ReadableFile
    do { readable = try ReadableFile(path: file) } catch {
      throw .decode(DecodeError(kind: .io, format: nil, message: error.message, path: file))
    }
    opened(readable.fileDescriptor)
    var offset = 0
    while true {
      let chunk: [UInt8]
      do { chunk = try readable.read(count: thumbnailChunkBytes, at: offset) } catch {
        throw .decode(DecodeError(kind: .io, format: nil, message: error.message, path: file))
      }
      if chunk.isEmpty { return }
      var failure: ThumbnailError? = nil
      chunk.withUnsafeBytes { bytes in
        // A short read is the end (a file that is a whole number of chunks ends on an empty read).
        do throws(ThumbnailError) { try body(bytes, chunk.count < thumbnailChunkBytes) } catch { failure = error }
      }
      if let failure { throw failure }
      offset += chunk.count
    }
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
  func forEachChunk(
    opened: (_ descriptor: Int32) -> Void, _ body: (UnsafeRawBufferPointer, _ isLast: Bool) throws(ThumbnailError) -> Void
  ) throws(ThumbnailError) {
    var failure: ThumbnailError? = nil
    bytes.withUnsafeBytes { all in
      var offset = 0
      repeat {
        let end = min(all.count, offset + thumbnailChunkBytes)
        do throws(ThumbnailError) {
          try body(UnsafeRawBufferPointer(rebasing: all[offset..<end]), end == all.count)
        } catch {
          failure = error
          return
        }
        offset = end
      } while offset < all.count
    }
    if let failure { throw failure }
  }
  func contents() -> [UInt8]? { bytes.withUnsafeBytes { Array($0) } }
}
