import SystemFiles

/// Prints each item's outcome (the plain line, the JSON line, the error on stderr), keeps the tally,
/// and works out the exit code and the closing "N of M items failed": the same for local files,
/// downloads and class walks. Safe to call from any task or thread.
public final class ItemReporter: Sendable {
  private struct Tally {
    var done = 0
    var failed = 0
    var kinds: [ItemOutcome.FailureKind] = []
    /// Thumbnails made or reused, and of those reused.
    var thumbnails = 0
    var reused = 0
    /// imgfetch's own thumbnails met as sources (a walk, a glob): skipped without a line.
    var ownThumbnails = 0
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

  /// Prints one finished item and counts it. An item cut off by Ctrl-C or SIGTERM is not counted
  /// and gets no line of its own on stderr (the run ends with one `interrupted` line), but with
  /// `--json` it still gets its object, `"error":"interrupted"`, so a script reading the lines
  /// knows what was in flight. One of imgfetch's own thumbnails met as a source is not an item of
  /// the work: it prints no line (its JSON object says it was skipped) and is counted apart, for
  /// the summary.
  /// - Parameter outcome: The item's outcome.
  public func report(_ outcome: ItemOutcome) {
    if outcome.failure?.kind == .cancelled {
      var interrupted = outcome
      interrupted.failure = (.cancelled, ItemOutcome.interruptedMessage)
      if output.json { progress.print(jsonLine(interrupted.jsonFields)) }
      return
    }
    tally.withLock { tally in
      if outcome.isOwnThumbnail {
        tally.ownThumbnails += 1
        return
      }
      tally.done += 1
      if let failure = outcome.failure {
        tally.failed += 1
        tally.kinds.append(failure.kind)
      }
      if let thumbnail = outcome.thumbnail {
        tally.thumbnails += 1
        if thumbnail.reused { tally.reused += 1 }
      }
    }
    if let failure = outcome.failure, !outcome.failureIsSummarised {
      let label = outcome.source
      progress.print(failure.message.hasPrefix(label) ? failure.message : "\(label): \(failure.message)", toError: true)
    } else if let skipped = outcome.skipped, !outcome.isOwnThumbnail {
      progress.print("\(outcome.source): skipped: \(skipped)", toError: true)
    }
    if output.json {
      progress.print(jsonLine(outcome.jsonFields))
    } else if !output.quiet && outcome.failure == nil && outcome.skipped == nil {
      progress.print(outcome.line)
    }
    progress.finished(outcome.source, bytes: outcome.bytes, failed: outcome.failure != nil)
  }

  /// Erases the progress bar, prints the summary, and returns the exit code: 0 when nothing failed;
  /// the failures' own code (3, 4 or 5) when every item failed for the same kind of reason; 2 when
  /// some failed; 5 instead of 0 or 2 when the results could not be written to standard output
  /// (``Console/exitCode(_:)``).
  ///
  /// The summary is one line on standard error: "N of M items failed" when a batch had failures;
  /// otherwise, when imgfetch's own thumbnails were skipped without a line, "T thumbnails, R reused,
  /// S own thumbnails skipped" (not with `--quiet`), so the skipped files are said once. Own
  /// thumbnails are not items: they count neither in M nor in the exit code.
  /// - Parameter isBatch: Whether the run was a batch (several sources, a folder, or a class) rather
  ///   than one item.
  /// - Returns: The exit code.
  public func finish(isBatch: Bool) -> ExitCode {
    progress.finish()
    let tally = tally.withLock { $0 }
    let own = tally.ownThumbnails == 0 ? "" : ", " + counted(tally.ownThumbnails, "own thumbnail") + " skipped"
    if tally.failed == 0 {
      if !own.isEmpty && !output.quiet {
        Console.error("\(counted(tally.thumbnails, "thumbnail")), \(tally.reused) reused\(own)")
      }
      return Console.exitCode(.success)
    }
    if isBatch || tally.done > 1 { Console.error(failureSummary(failed: tally.failed, of: tally.done) + own) }
    if tally.failed == tally.done, let kind = tally.kinds.first, tally.kinds.allSatisfy({ $0 == kind }) {
      return kind.exitCode
    }
    return Console.exitCode(.someItemsFailed)
  }
}
