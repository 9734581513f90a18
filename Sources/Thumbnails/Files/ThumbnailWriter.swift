import ImageCodecs
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// Encodes a thumbnail, stamps it, and writes it atomically.
enum ThumbnailWriter {
  /// Writes `image` to `path` (temporary file, then rename: never a partial file), creating the
  /// folders above it first when `createsFolders` is set (an output folder's mirrored tree).
  /// - Parameters:
  ///   - image: The pixels; for a format without alpha, flatten alpha first. Its colour space is
  ///     embedded as an ICC profile unless it is sRGB.
  ///   - encoder: The format and its settings.
  ///   - stamp: The record to embed, if any.
  ///   - path: The destination.
  ///   - flushesToDisk: `fsync` before the rename (durable across power failures, slower).
  ///   - createsFolders: Create the missing folders of `path`.
  /// - Throws: ``ThumbnailError/encode(_:)`` or ``ThumbnailError/write(_:)``, with the path.
  static func write(
    _ image: Image, as encoder: any ImageEncoding, stamp: ThumbnailStamp?, to path: String,
    flushesToDisk: Bool, createsFolders: Bool = false
  ) throws(ThumbnailError) {
    let bytes: [UInt8]
    do { bytes = try ImageEncoder.encode(image, as: encoder, comment: stamp?.text) } catch {
      var located = error
      located.path = path
      throw .encode(located)
    }
    if createsFolders, let slash = path.lastIndex(of: "/"), slash > path.startIndex {
      try ThumbnailDirectory.create(String(path[..<slash]))
    }
    do { try AtomicFile.write(bytes, to: path, flushesToDisk: flushesToDisk) } catch { throw .write(error) }
  }

  /// The text of the current `errno`.
  static func systemError() -> String { SystemError.message(forCode: errno) }
}
