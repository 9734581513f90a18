import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// Facts about standard error as a terminal, for deciding whether and how wide to draw progress.
struct Terminal: Sendable {
  /// Whether standard error is a terminal.
  let isInteractive: Bool
  /// Columns available (80 when unknown).
  let width: Int
  /// Whether standard output is a pipe: what goes into it may reach the same terminal later (through
  /// `head`, `jq`, `less`), after a bar drawn meanwhile, so the two would share a line.
  var outputIsPipe = false

  /// Reads the current standard error and environment.
  static func current() -> Terminal {
    let interactive = isatty(STDERR_FILENO) == 1
    var size = winsize()
    let columns = ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    let pipe = (try? FileStatus(descriptor: STDOUT_FILENO, path: "standard output"))?.kind == .fifo
    return Terminal(isInteractive: interactive, width: columns, outputIsPipe: pipe)
  }
}
