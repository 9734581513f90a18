#if canImport(Glibc)
  import Glibc
#endif

/// A regular file opened for appending, such as a download's `.part` file.
///
/// The path is opened with `O_NONBLOCK` (a FIFO put in its place cannot block the open), checked to
/// be a regular file on the descriptor, cut to the bytes that are kept, and written at its end.
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
  /// - Throws: ``SystemError``: `open`, `stat` or `truncate` failed, or the path is not a regular file.
  public init(appendingTo path: String, keeping bytes: Int64) throws(SystemError) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      // A FIFO with no reader refuses a non-blocking open for writing.
      if errno == ENXIO { throw SystemError(operation: "open", path: path, reason: .notRegularFile(.fifo)) }
      throw .last("open", path)
    }
    do throws(SystemError) {
      let status = try FileStatus(descriptor: descriptor, path: path)
      guard status.kind == .regular else {
        throw SystemError(operation: "open", path: path, reason: .notRegularFile(status.kind))
      }
      let flags = fcntl(descriptor, F_GETFL)
      guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
        throw SystemError.last("open", path)
      }
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
