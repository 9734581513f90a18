import SystemFiles

/// Prints each item's outcome (the plain line, the JSON line, the error on stderr), keeps the tally,
/// and works out the exit code and the closing "N of M items failed": the same for local files,
/// downloads and class walks. Safe to call from any task or thread.
public final class ItemReporter: Sendable {
  private struct Tally {
    var done = 0
    var failed = 0
    var kinds: [ItemOutcome.FailureKind] = []
  }

  /// The progress drawing, which lines are printed through so they never share a line with the bar.
  public let progress: ProgressReporter
  private let output: OutputOptions
  private let tally = Locked(Tally())

  /// Creates a reporter.
  /// - Parameters:
  ///   - output: `--json`, `--quiet`, `--progress`.
  ///   - total: The number of items, when known at the start.
  public init(output: OutputOptions, total: Int?) {
    self.output = output
    progress = ProgressReporter(mode: output.effectiveProgress, terminal: Terminal.current(), total: total)
  }

  /// Prints one finished item and counts it (cancelled items are neither printed nor counted).
  /// - Parameter outcome: The item's outcome.
  public func report(_ outcome: ItemOutcome) {
    if outcome.failure?.kind == .cancelled { return }
    tally.withLock { tally in
      tally.done += 1
      if let failure = outcome.failure {
        tally.failed += 1
        tally.kinds.append(failure.kind)
      }
    }
    if let failure = outcome.failure, !outcome.failureIsSummarised {
      let label = outcome.source
      progress.print(failure.message.hasPrefix(label) ? failure.message : "\(label): \(failure.message)", toError: true)
    } else if let skipped = outcome.skipped {
      progress.print("\(outcome.source): skipped: \(skipped)", toError: true)
    }
    if output.json {
      progress.print(jsonLine(outcome.jsonFields))
    } else if !output.quiet && outcome.failure == nil && outcome.skipped == nil {
      progress.print(outcome.line)
    }
    progress.finished(outcome.source, bytes: outcome.bytes, failed: outcome.failure != nil)
  }

  /// Erases the progress bar, prints "N of M items failed" when a batch had failures, and returns
  /// the exit code: 0 when nothing failed; the failures' own code (3, 4 or 5) when every item failed
  /// for the same kind of reason; 2 when some failed; 5 instead of 0 or 2 when the results could
  /// not be written to standard output (``Console/exitCode(_:)``).
  /// - Parameter isBatch: Whether the run was a batch (several sources, or a class) rather than one item.
  /// - Returns: The exit code.
  public func finish(isBatch: Bool) -> ExitCode {
    progress.finish()
    let (done, failed, kinds) = tally.withLock { ($0.done, $0.failed, $0.kinds) }
    if failed == 0 { return Console.exitCode(.success) }
    if isBatch || done > 1 { Console.error(failureSummary(failed: failed, of: done)) }
    if failed == done, let kind = kinds.first, kinds.allSatisfy({ $0 == kind }) { return kind.exitCode }
    return Console.exitCode(.someItemsFailed)
  }
}
