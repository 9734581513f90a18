#if canImport(Glibc)
  import Glibc
#endif

/// Standard input, output and error: writing to them unbuffered, and what they are connected to.
///
/// ```swift
/// if let failure = StandardStream.output.write(line) { print(failure.message) }
/// ```
public enum StandardStream: Int32, Sendable {
  /// Descriptor 0.
  case input = 0
  /// Descriptor 1.
  case output = 1
  /// Descriptor 2.
  case error = 2

  /// The stream's name for messages: `standard output`.
  public var name: String {
    switch self {
    case .input: "standard input"
    case .output: "standard output"
    case .error: "standard error"
    }
  }

  /// Writes every byte, retrying interrupted writes.
  /// - Parameter bytes: The bytes.
  /// - Returns: nil, or the failure (a reader that went away: ``SystemError/isBrokenPipe``).
  @discardableResult
  public func write(_ bytes: UnsafeRawBufferPointer) -> SystemError? {
    Descriptors.writeAll(bytes, to: rawValue, path: name)
  }

  /// Writes text as UTF-8; see ``write(_:)-(UnsafeRawBufferPointer)``.
  /// - Parameter text: The text.
  /// - Returns: nil, or the failure.
  @discardableResult
  public func write(_ text: String) -> SystemError? {
    var text = text
    return text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
  }

  /// Whether the stream is a terminal (`isatty`).
  public var isTerminal: Bool { isatty(rawValue) == 1 }

  /// What the stream is connected to (a FIFO for a pipe), or nil when it is closed.
  public var kind: FileKind? { (try? FileStatus(descriptor: rawValue, path: name))?.kind }

  /// The terminal's width in columns (`TIOCGWINSZ`), or nil when the stream is no terminal.
  public var terminalColumns: Int? {
    var size = winsize()
    guard ioctl(rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
    return Int(size.ws_col)
  }

  /// Keeps the numbers of the standard streams a process was started with closed (`… >&-`): otherwise
  /// the next file or socket opened would get that number, and output would go into it. A closed one
  /// is opened read-only on `/dev/null`, so a write to it still fails with `EBADF`, as a closed
  /// descriptor's does. Call first, before anything opens a file.
  public static func reserveClosedStreams() {
    for stream in [StandardStream.input, .output, .error] where fcntl(stream.rawValue, F_GETFD) == -1 && errno == EBADF
    {
      let null = open("/dev/null", O_RDONLY)  // the lowest free number: this one, as 0…2 go in order
      if null >= 0 && null != stream.rawValue {
        dup2(null, stream.rawValue)
        close(null)
      }
    }
  }
}

extension SystemError {
  /// Whether a write failed because its reader went away (`EPIPE`, as `| head` does).
  public var isBrokenPipe: Bool { code == EPIPE }
}
