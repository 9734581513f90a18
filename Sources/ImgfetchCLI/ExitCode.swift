/// The process exit codes of `imgfetch`, documented in `--help` and the README.
public enum ExitCode: Int32, Sendable {
  /// Everything asked for was done.
  case success = 0
  /// The command line was wrong: unknown option, bad value, missing argument.
  case usage = 1
  /// A batch finished, but some items failed (each is reported).
  case someItemsFailed = 2
  /// A network or server error: an error status, a lost connection, or a transfer that was silent
  /// (`--timeout`), too slow (`--min-speed`) or too long (`--max-time`).
  case networkError = 3
  /// A file is not a valid image (corrupt, truncated, unsupported, or over a limit), or the data
  /// names no image: a Parse column that is missing or holds something else than a file, a Parse
  /// object that does not exist. Retrying does not help.
  case invalidImage = 4
  /// A local file or directory could not be read or written (the message names the path and gives
  /// the system's reason): an unreadable input, `decode -o` into a read-only directory, a closed
  /// standard output, a cache directory that cannot be made.
  case fileSystem = 5
  /// Interrupted by Ctrl-C or SIGTERM.
  case interrupted = 130

  /// The exit code of a run over `items` items with these failures: 0 with none, the failures' own
  /// code when every item failed for the same kind of reason, 2 otherwise.
  /// - Parameters:
  ///   - failures: The kind of each failure.
  ///   - items: How many items there were.
  /// - Returns: The exit code.
  public static func of(failures: [ItemOutcome.FailureKind], items: Int) -> ExitCode {
    guard let first = failures.first else { return .success }
    if failures.count == items && failures.allSatisfy({ $0 == first }) { return first.exitCode }
    return .someItemsFailed
  }
}
