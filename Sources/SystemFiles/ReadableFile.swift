#if canImport(Glibc)
  import Glibc
#endif

/// An input opened for reading that is known to be a regular file.
///
/// The path is opened with `O_RDONLY | O_NONBLOCK | O_CLOEXEC`, so a FIFO or a device at the path
/// cannot block the open, then checked with `fstat` on the descriptor itself (no race with the path
/// changing), and only then switched back to blocking reads:
///
/// ```swift
/// let file = try ReadableFile(path: "photo.jpg")   // "photo.jpg is a FIFO, not a regular file"
/// let bytes = try file.readAll()
/// ```
///
/// The descriptor closes when the value is released, unless ``takeDescriptor()`` handed it on.
public final class ReadableFile {
  /// The path it was opened from.
  public let path: String
  /// Its status at open time.
  public let status: FileStatus
  private var descriptor: Int32

  /// Opens `path` for reading, refusing anything but a regular file.
  /// - Parameter path: The file.
  /// - Throws: ``SystemError``: `open` or `stat` failed, or ``SystemError/Reason/notRegularFile(_:)``.
  public init(path: String) throws(SystemError) {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { throw .last("open", path) }
    let status: FileStatus
    do { status = try FileStatus(descriptor: descriptor, path: path) } catch {
      Glibc.close(descriptor)
      throw error
    }
    guard status.kind == .regular else {
      Glibc.close(descriptor)
      throw SystemError(operation: "open", path: path, reason: .notRegularFile(status.kind))
    }
    let flags = fcntl(descriptor, F_GETFL)
    guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else {
      let error = SystemError.last("open", path)
      Glibc.close(descriptor)
      throw error
    }
    self.path = path
    self.status = status
    self.descriptor = descriptor
  }

  deinit { if descriptor >= 0 { Glibc.close(descriptor) } }

  /// The open descriptor, still owned by this value (valid until it is released or closed).
  public var fileDescriptor: Int32 { descriptor }

  /// Hands the descriptor to the caller, who must close it; this value no longer closes it.
  /// - Returns: The descriptor.
  public func takeDescriptor() -> Int32 {
    let taken = descriptor
    descriptor = -1
    return taken
  }

  /// Closes the descriptor now.
  public func close() {
    if descriptor >= 0 { Glibc.close(descriptor) }
    descriptor = -1
  }

  /// Reads up to `count` bytes at `offset` without moving the file position (`pread`).
  /// - Parameters:
  ///   - count: The most bytes to read.
  ///   - offset: Where to start.
  /// - Returns: The bytes; fewer than `count` at the end of the file.
  /// - Throws: ``SystemError`` with the operation `read`.
  public func read(count: Int, at offset: Int) throws(SystemError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: max(0, count))
    var done = 0
    var failure: SystemError? = nil
    bytes.withUnsafeMutableBytes { buffer in
      while done < buffer.count {
        let got = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
        if got < 0 && errno == EINTR { continue }
        if got < 0 { failure = .last("read", path) }
        if got <= 0 { break }
        done += got
      }
    }
    if let failure { throw failure }
    return Array(bytes[..<done])
  }

  /// Reads the whole file, sized by its status at open time (a file that grew is read as it was).
  /// - Parameter limit: The largest size accepted; larger files throw `EFBIG` before any allocation.
  /// - Returns: The bytes.
  /// - Throws: ``SystemError`` with the operation `read`.
  public func readAll(limit: Int = Int.max) throws(SystemError) -> [UInt8] {
    guard status.size <= limit else { throw SystemError(operation: "read", path: path, reason: .errno(EFBIG)) }
    return try read(count: status.size, at: 0)
  }
}
