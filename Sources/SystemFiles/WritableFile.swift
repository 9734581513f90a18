#if canImport(Glibc)
  import Glibc
#endif

/// A regular file opened for appending, such as a download's `.part` file.
///
/// The name is opened relative to its folder with `O_NOFOLLOW` and `O_NONBLOCK`: a symbolic link
/// planted at it is refused, never followed (its target is never cut or written), and a FIFO put in
/// its place cannot block the open. The descriptor is checked to be a regular file, cut to the bytes
/// that are kept, and written at its end.
///
/// ```swift
/// let part = try WritableFile(appendingTo: "photo.jpg.part", keeping: 0)
/// try part.append(bytes)
/// ```
public final class WritableFile {
  /// The path it was opened from.
  public let path: String
  /// The file's size: the bytes kept plus those appended.
  public private(set) var size: Int64
  private var descriptor: Int32

  /// Opens (creating it with mode 0644 when missing) and cuts the file to its first `bytes`.
  /// - Parameters:
  ///   - path: The file.
  ///   - bytes: How many of its bytes to keep; appends go after them.
  /// - Throws: ``SystemError``: `open`, `stat` or `truncate` failed, or the path is not a regular file
  ///   (a symbolic link, a FIFO: ``SystemError/Reason/notRegularFile(_:)``).
  public init(appendingTo path: String, keeping bytes: Int64) throws(SystemError) {
    let descriptor = try RegularFileOpen.open(path, flags: O_WRONLY | O_CREAT)
    do throws(SystemError) {
      guard ftruncate(descriptor, off_t(bytes)) == 0 else { throw SystemError.last("truncate", path) }
      guard lseek(descriptor, 0, SEEK_END) >= 0 else { throw SystemError.last("seek", path) }
    } catch {
      Glibc.close(descriptor)
      throw error
    }
    self.path = path
    self.descriptor = descriptor
    size = bytes
  }

  deinit { close() }

  /// Writes every byte at the end of the file.
  /// - Parameter bytes: The bytes.
  /// - Throws: ``SystemError`` with the operation `write` (a full disk: `ENOSPC`).
  public func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
    guard descriptor >= 0 else { throw SystemError(operation: "write", path: path, reason: .errno(EBADF)) }
    if let failure = Descriptors.writeAll(bytes, to: descriptor, path: path) { throw failure }
    size += Int64(bytes.count)
  }

  /// Flushes the file's data to disk (`fsync`).
  /// - Throws: ``SystemError`` with the operation `sync`.
  public func flush() throws(SystemError) {
    guard fsync(descriptor) == 0 else { throw .last("sync", path) }
  }

  /// Closes the descriptor now; later appends fail.
  public func close() {
    if descriptor >= 0 { Glibc.close(descriptor) }
    descriptor = -1
  }
}
