import SystemFiles

/// Where the command line writes: standard output for results, standard error for messages.
/// Writes go straight to the file descriptors, unbuffered, so output and progress never interleave
/// half-lines.
public enum Console {
  /// The first write to standard output that failed, nil while none has; and whether
  /// ``exitCode(_:)`` has printed it.
  private static let outputFailure = Locked<(failure: SystemError?, reported: Bool)>((nil, false))

  /// Writes a line to standard output (a failure is kept for ``exitCode(_:)``).
  public static func out(_ line: String) {
    if let failure = StandardStream.output.write(line + "\n") { keep(failure) }
  }

  /// The exit code of a command whose results are lines on standard output. When a line could
  /// not be written there (a closed descriptor, a full device, an I/O error), the results are lost,
  /// so a run that would have exited 0 or 2 exits ``ExitCode/fileSystem`` instead, after one line
  /// giving the system's reason. A reader that went away (`EPIPE`, as `| head` does) asked for no
  /// more: not an error.
  /// - Parameter code: The command's own exit code.
  /// - Returns: The exit code to use.
  public static func exitCode(_ code: ExitCode) -> ExitCode {
    guard code == .success || code == .someItemsFailed else { return code }
    let (failure, firstReport) = outputFailure.withLock { state -> (SystemError?, Bool) in
      guard let failure = state.failure, !failure.isBrokenPipe else { return (nil, false) }
      defer { state.reported = true }
      return (failure, !state.reported)
    }
    guard let failure else { return code }
    if firstReport { error("cannot write to standard output: \(failure.message)") }
    return .fileSystem
  }

  /// Writes `imgfetch: message` to standard error.
  public static func error(_ message: String) { StandardStream.error.write("imgfetch: \(message)\n") }

  /// Writes text to standard error as it is (for progress drawing).
  public static func errorRaw(_ text: String) { StandardStream.error.write(text) }

  /// Writes raw bytes to standard output.
  /// - Returns: nil, or why the write failed (for example a closed pipe).
  @discardableResult
  public static func outBytes(_ bytes: UnsafeRawBufferPointer) -> SystemError? { StandardStream.output.write(bytes) }

  private static func keep(_ failure: SystemError) {
    outputFailure.withLock { state in
      if state.failure == nil { state.failure = failure }
    }
  }
}
