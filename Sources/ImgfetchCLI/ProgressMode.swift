/// `--progress auto|always|never|json`: where progress goes.
public enum ProgressMode: String, Sendable, CaseIterable {
  /// A live bar on standard error when it is a terminal; nothing on a pipe.
  case auto
  /// A live bar on standard error even when it is not a terminal.
  case always
  /// No progress output.
  case never
  /// Progress events as JSON lines on standard error.
  case json

  /// Parses the option's value.
  /// - Parameter text: `auto`, `always`, `never` or `json`.
  /// - Throws: ``UsageError`` for anything else.
  public init(parsing text: String) throws(UsageError) {
    guard let mode = ProgressMode(rawValue: text) else {
      throw UsageError("--progress must be auto, always, never or json (got \(text))")
    }
    self = mode
  }
}
