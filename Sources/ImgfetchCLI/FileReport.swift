/// The scripting contract of the commands that work through the files named on the command line
/// (`info`, `verify`, `decode`), the same as the default command's (``ItemReporter``): each result on
/// standard output (a line, or with `--json` one object), each failure as one line on standard
/// error and, with `--json`, also as a `{"source":…,"error":…}` object on standard output; after
/// several files with failures, "N of M items failed" on standard error; the exit code of
/// ``ExitCode/of(failures:items:)``.
struct FileReport {
  /// Whether results are JSON objects.
  let json: Bool
  /// Whether plain result lines are left out (`--quiet`: errors only; JSON objects, when asked for, stay).
  let quiet: Bool
  private var items = 0
  private var failures: [ItemOutcome.FailureKind] = []

  /// Creates a report.
  /// - Parameters:
  ///   - json: One JSON object per file.
  ///   - quiet: No plain result lines.
  init(json: Bool, quiet: Bool) {
    self.json = json
    self.quiet = quiet
  }

  /// Prints a file's result: its JSON object with `--json`, else its plain line (unless `--quiet`).
  /// - Parameters:
  ///   - line: The plain line.
  ///   - fields: The JSON object's fields, `source` first.
  mutating func succeeded(line: @autoclosure () -> String, fields: @autoclosure () -> [(String, JSONValue)]) {
    items += 1
    if json {
      Console.out(jsonLine(fields()))
    } else if !quiet {
      Console.out(line())
    }
  }

  /// Prints a file's failure: `imgfetch: SOURCE: reason` on standard error and, with `--json`, the
  /// same object as the default command's for a failed item.
  /// - Parameters:
  ///   - source: The file as given.
  ///   - kind: The kind of failure, for the exit code.
  ///   - message: The reason (the source is put in front unless it starts with it).
  mutating func failed(_ source: String, kind: ItemOutcome.FailureKind, message: String) {
    items += 1
    failures.append(kind)
    Console.error(message.hasPrefix(source) ? message : "\(source): \(message)")
    if json { Console.out(jsonLine([("source", .string(source)), ("error", .string(message))])) }
  }

  /// Prints "N of M items failed" after several files with failures and returns the exit code.
  /// - Returns: 0, the failures' own code when every file failed the same way, 2 otherwise; 5
  ///   instead of 0 or 2 when standard output could not be written (``Console/exitCode(_:)``).
  func finish() -> ExitCode {
    if items > 1 && !failures.isEmpty { Console.error(failureSummary(failed: failures.count, of: items)) }
    return Console.exitCode(ExitCode.of(failures: failures, items: items))
  }
}
