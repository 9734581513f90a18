#if canImport(Glibc)
  import Glibc
#endif

/// Facts about standard error as a terminal, for deciding whether and how wide to draw progress.
struct Terminal: Sendable {
  /// Whether standard error is a terminal.
  let isInteractive: Bool
  /// Columns available (80 when unknown).
  let width: Int

  /// Reads the current standard error and environment.
  static func current() -> Terminal {
    let interactive = isatty(STDERR_FILENO) == 1
    var size = winsize()
    let columns = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    return Terminal(isInteractive: interactive, width: columns)
  }
}
