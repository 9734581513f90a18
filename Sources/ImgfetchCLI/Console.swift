import Synchronization
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// Where the command line writes: standard output for results, standard error for messages.
/// Writes go straight to the file descriptors, unbuffered, so output and progress never interleave
/// half-lines.
public enum Console {
  /// The `errno` of the first write to standard output that failed, 0 while none has.
  private static let outputFailure = Atomic<Int32>(0)
  /// Whether ``exitCode(_:)`` has printed the failure.
  private static let outputFailureReported = Atomic<Bool>(false)

  /// Writes a line to standard output (a failure is kept for ``exitCode(_:)``).
  public static func out(_ line: String) {
    var text = line + "\n"
    let failure = text.withUTF8 { writeAll(UnsafeRawBufferPointer($0), to: STDOUT_FILENO) }
    if failure != 0 { _ = outputFailure.compareExchange(expected: 0, desired: failure, ordering: .relaxed) }
  }

  /// The exit code of a command whose results are lines on standard output. When a line could
  /// not be written there (a closed descriptor, a full device, an I/O error), the results are lost,
  /// so a run that would have exited 0 or 2 exits ``ExitCode/fileSystem`` instead, after one line
  /// giving the system's reason. A reader that went away (`EPIPE`, as `| head` does) asked for no
  /// more: not an error.
  /// - Parameter code: The command's own exit code.
  /// - Returns: The exit code to use.
  public static func exitCode(_ code: ExitCode) -> ExitCode {
    let failure = outputFailure.load(ordering: .relaxed)
    guard failure != 0, failure != EPIPE, code == .success || code == .someItemsFailed else { return code }
    if !outputFailureReported.exchange(true, ordering: .relaxed) {
      error("cannot write to standard output: \(SystemError.message(forCode: failure))")
    }
    return .fileSystem
  }

  /// Keeps the numbers of standard input, output and error taken when the process starts with one
  /// of them closed (`imgfetch … >&-`): otherwise the next file or socket opened would get that
  /// number, and result lines would go into it (the interrupt socket pair, where a long run would
  /// block once its buffer is full). A closed one is opened read-only on `/dev/null`, so a write to
  /// it still fails with `EBADF`, as a closed descriptor does, in this process and in one it execs.
  /// Call first, before anything opens a file.
  public static func reserveStandardDescriptors() {
    for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
    where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
      let null = open("/dev/null", O_RDONLY)  // the lowest free number: this one, as 0…2 go in order
      if null >= 0 && null != descriptor {
        dup2(null, descriptor)
        close(null)
      }
    }
  }

  /// Writes `imgfetch: message` to standard error.
  public static func error(_ message: String) { writeText("imgfetch: \(message)\n", to: STDERR_FILENO) }

  /// Writes text to standard error as it is (for progress drawing).
  public static func errorRaw(_ text: String) { writeText(text, to: STDERR_FILENO) }

  /// Writes raw bytes to standard output.
  /// - Returns: `false` when the write failed (for example a closed pipe).
  @discardableResult
  public static func outBytes(_ bytes: UnsafeRawBufferPointer) -> Bool { writeAll(bytes, to: STDOUT_FILENO) == 0 }

  private static func writeText(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { _ = writeAll(UnsafeRawBufferPointer($0), to: descriptor) }
  }

  /// Writes every byte, retrying interrupted writes.
  /// - Returns: 0, or the `errno` of the write that failed (also left in `errno`).
  private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
    guard let base = bytes.baseAddress else { return 0 }
    var offset = 0
    while offset < bytes.count {
      let written = write(descriptor, base + offset, bytes.count - offset)
      if written < 0 {
        if errno == EINTR { continue }
        return errno
      }
      offset += written
    }
    return 0
  }
}
