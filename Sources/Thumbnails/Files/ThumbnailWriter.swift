import ImageCodecs
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// Encodes a thumbnail, stamps it, and writes it atomically.
enum ThumbnailWriter {
  /// Writes `image` to `path` (temporary file, then rename: never a partial file).
  /// - Parameters:
  ///   - image: The pixels; JPEG needs gray8 or rgb8 (flatten alpha first).
  ///   - format: The encoder settings.
  ///   - stamp: The record to embed, if any.
  ///   - path: The destination.
  ///   - flushesToDisk: `fsync` before the rename (durable across power failures, slower).
  /// - Throws: ``ThumbnailError/encode(_:)`` or ``ThumbnailError/write(_:)``, with the path.
  static func write(
    _ image: Image, as format: EncodedFormat, stamp: ThumbnailStamp?, to path: String,
    flushesToDisk: Bool
  ) throws(ThumbnailError) {
    let bytes: [UInt8]
    do { bytes = try ImageEncoder.encode(image, as: format, comment: stamp?.text) } catch {
      var located = error
      located.path = path
      throw .encode(located)
    }
    do { try AtomicFile.write(bytes, to: path, flushesToDisk: flushesToDisk) } catch { throw .write(error) }
  }

  /// The text of the current `errno`.
  static func systemError() -> String { SystemError.message(forCode: errno) }
}
