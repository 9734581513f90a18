/// The process exit codes of `imgfetch`, documented in `--help` and the README.
public enum ExitCode: Int32, Sendable {
  /// Everything asked for was done.
  case success = 0
  /// The command line was wrong: unknown option, bad value, missing argument.
  case usage = 1
  /// A batch finished, but some items failed (each is reported).
  case someItemsFailed = 2
  /// A network or server error.
  case networkError = 3
  /// A file is not a valid image (or cannot be read as one).
  case invalidImage = 4
  /// Interrupted by Ctrl-C or SIGTERM.
  case interrupted = 130
}
