import SystemFiles

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
    Terminal(
      isInteractive: StandardStream.error.isTerminal, width: StandardStream.error.terminalColumns ?? 80,
      outputIsPipe: StandardStream.output.kind == .fifo)
  }
}
