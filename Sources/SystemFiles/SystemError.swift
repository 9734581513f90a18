#if canImport(Glibc)
  import Glibc
#endif

/// A failed system call on a path: which operation, which path, and why, in one line.
///
/// ```swift
/// do { let file = try ReadableFile(path: "photo.jpg") } catch { print(error) }
/// // photo.jpg is a FIFO, not a regular file
/// ```
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
  /// Why the operation failed.
  public enum Reason: Sendable, Equatable {
    /// The call set `errno` to this code.
    case errno(Int32)
    /// The path names something other than a regular file (a FIFO, a device, a directory …).
    case notRegularFile(FileKind)
    /// A folder was expected but the path names something else (a symbolic link where links are
    /// not followed, a file).
    case notDirectory(FileKind)
    /// A FIFO was to be written but nothing has it open for reading (`ENXIO` from a non-blocking open).
    case fifoWithoutReader
  }

  /// The operation, as a verb: `open`, `read`, `write`, `rename`, `stat`, …
  public let operation: String
  /// The path the operation was on.
  public let path: String
  /// Why it failed.
  public let reason: Reason

  /// Describes a failure.
  /// - Parameters:
  ///   - operation: The verb (`open`, `write`, …).
  ///   - path: The path.
  ///   - reason: Why it failed.
  public init(operation: String, path: String, reason: Reason) {
    self.operation = operation
    self.path = path
    self.reason = reason
  }

  /// A failure of the last system call, reading the calling thread's `errno` now.
  /// - Parameters:
  ///   - operation: The verb (`open`, `write`, …).
  ///   - path: The path.
  /// - Returns: The error, carrying the current `errno`.
  public static func last(_ operation: String, _ path: String) -> SystemError {
    SystemError(operation: operation, path: path, reason: .errno(Glibc.errno))
  }

  /// The `errno` code, when the failure came from one.
  public var code: Int32? {
    if case .errno(let code) = reason { return code }
    return nil
  }

  /// Why, without the path: the system's text for `errno`, or `a FIFO, not a regular file`.
  public var message: String {
    switch reason {
    case .errno(let code): Self.message(forCode: code)
    case .notRegularFile(let kind): "\(kind), not a regular file"
    case .notDirectory(let kind): "\(kind), not a directory"
    case .fifoWithoutReader: "a FIFO with no reader"
    }
  }

  /// One line: `photo.jpg is a FIFO, not a regular file` or `out.raw: cannot write: No space left on device`.
  public var description: String {
    switch reason {
    case .errno, .fifoWithoutReader: "\(path): cannot \(operation): \(message)"
    case .notRegularFile, .notDirectory: "\(path) is \(message)"
    }
  }

  /// The system's text for an `errno` code: the one place that turns codes into words.
  /// - Parameter code: An `errno` value.
  /// - Returns: The text, e.g. `No such file or directory`.
  public static func message(forCode code: Int32) -> String {
    var buffer = [CChar](repeating: 0, count: 256)
    // The XSI strerror_r (the one Swift sees) fills the buffer; unlike strerror it is thread-safe.
    guard strerror_r(code, &buffer, buffer.count) == 0 else { return "error \(code)" }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}

extension SystemError {
  /// Whether the path did not exist (`ENOENT`).
  public var isMissingFile: Bool { code == ENOENT }
}
