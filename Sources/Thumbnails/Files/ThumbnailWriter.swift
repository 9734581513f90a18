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
  ///   - replacesUnstampedFiles: With a stamp: replace a file at `path` that carries none (or a
  ///     link there); without it such a file is refused.
  ///   - exif: An Exif block to splice into the file (``ThumbnailExif``), if any.
  ///   - templated: The name comes from a template: a stamped file there made from a source of
  ///     another name is refused too (unless `replacesUnstampedFiles`), so two sources that one
  ///     template names alike never take turns replacing each other's thumbnail.
  /// - Throws: ``ThumbnailError/encode(_:)``, ``ThumbnailError/write(_:)`` or
  ///   ``ThumbnailError/occupied(path:by:)``, with the path.
  static func write(
    _ image: Image, as encoder: any ImageEncoding, stamp: ThumbnailStamp?, to path: String,
    flushesToDisk: Bool, createsFolders: Bool = false, replacesUnstampedFiles: Bool = false, exif: [UInt8]? = nil,
    templated: Bool = false
  ) throws(ThumbnailError) {
    if stamp != nil { try checkOccupant(of: path, replacingUnstamped: replacesUnstampedFiles) }
    if let stamp, templated, !replacesUnstampedFiles, let existing = ThumbnailStamp.read(fromFileAt: path),
      let theirs = ThumbnailStamp.sourceName(inKey: existing.key), theirs != ThumbnailStamp.sourceName(inKey: stamp.key)
    {
      throw .occupied(path: path, by: .anotherSourcesThumbnail(theirs))
    }
    var bytes: [UInt8]
    do {
      bytes = try ImageEncoder.encode(image, as: encoder, comment: stamp?.text)
      if let exif { bytes = ThumbnailExif.insert(exif, into: bytes, format: encoder.format) }
    } catch {
      var located = error
      located.path = path
      throw .encode(located)
    }
    if createsFolders, let slash = path.lastIndex(of: "/"), slash > path.startIndex {
      try ThumbnailDirectory.create(String(path[..<slash]))
    }
    do { try AtomicFile.write(bytes, to: path, flushesToDisk: flushesToDisk) } catch { throw .write(error) }
  }

  /// Refuses a thumbnail's name held by a regular file without a stamp (a person's file) or by a
  /// link, unless `replacingUnstamped`. A file that carries a stamp is imgfetch's, even cut short (a
  /// power failure after an unsynced write). A FIFO, device or folder is left to the atomic write,
  /// which refuses it without opening it.
  static func checkOccupant(of path: String, replacingUnstamped: Bool) throws(ThumbnailError) {
    guard !replacingUnstamped, let own = try? FileStatus.withoutFollowingLinks(path) else { return }
    switch own.kind {
    case .regular where !ThumbnailStamp.isCarried(byFileAt: path): throw .occupied(path: path, by: .unstampedFile)
    case .symbolicLink: throw .occupied(path: path, by: .symbolicLink)
    default: return
    }
  }

  /// The text of the current `errno`.
  static func systemError() -> String { SystemError.message(forCode: errno) }
}
