import SystemFiles

/// Draws progress on standard error: a single line redrawn in place (at most ten times a second)
/// on a terminal, JSON events with `--progress json`, nothing otherwise. Safe to call from any task.
///
/// One item: that download's ``ProgressLine``. A batch: one ``BatchProgressLine`` for all of it,
/// whose fraction is the items finished plus each item in flight's downloaded part, over the total;
/// the ETA is the batch's rate so far in that measure (items per second, an item half downloaded
/// counting half): time so far × (1 − fraction) / fraction. Fraction and bytes never go back.
public final class ProgressReporter: Sendable {
  private struct State {
    var line = ProgressLine(label: "")
    var drawn = false
    var lastDraw: Double = 0
    var started: Double = 0
    var batchBytes: Int64 = 0
    var done = 0
    var total: Int?
    /// A batch's items in flight: bytes received and expected, by label.
    var inFlight: [String: (received: Int64, expected: Int64?)] = [:]
    /// Bytes the batch's finished items downloaded.
    var finishedBytes: Int64 = 0
    /// What the batch line last showed, so it never goes back (a retried download starts over).
    var shownFraction: Double = 0
    var shownBytes: Int64 = 0
  }

  private let mode: ProgressMode
  private let drawsBar: Bool
  private let width: Int
  /// Whether the run is a batch: anything but a run known to be one item.
  private let isBatch: Bool
  private let state = Locked(State())

  /// Creates a reporter.
  /// - Parameters:
  ///   - mode: The `--progress` choice.
  ///   - terminal: Standard error's facts.
  ///   - total: The number of items, when known; a run of one item draws that item's line, any
  ///     other run (a class walk's total comes later) the batch's line.
  init(mode: ProgressMode, terminal: Terminal, total: Int?) {
    self.mode = mode
    self.isBatch = total != 1
    // `auto` draws on a terminal, but not when results go into a pipe: the pipe's reader may print
    // them on the same terminal after the bar was redrawn, gluing bar and line together.
    self.drawsBar = mode == .always || (mode == .auto && terminal.isInteractive && !terminal.outputIsPipe)
    self.width = terminal.width
    state.withLock {
      $0.started = ProgressReporter.now()
      $0.total = total
    }
  }

  /// Reports bytes received for an item.
  /// - Parameters:
  ///   - label: The item's name.
  ///   - received: Bytes so far.
  ///   - expected: Total bytes, when known.
  public func transfer(_ label: String, received: Int64, expected: Int64?) {
    if mode == .json {
      var fields: [(String, JSONValue)] = [
        ("event", .string("progress")), ("source", .string(label)), ("bytesReceived", .int(Int(received))),
      ]
      fields.append(("bytesExpected", expected.map { .int(Int($0)) } ?? .null))
      if let expected, expected > 0 { fields.append(("fraction", .double(Double(received) / Double(expected)))) }
      Console.errorRaw(jsonLine(fields) + "\n")
      return
    }
    guard drawsBar else { return }
    state.withLock { state in
      let now = ProgressReporter.now()
      if isBatch {
        let before = state.inFlight[label]?.received ?? 0
        state.inFlight[label] = (Swift.max(before, received), expected)
        if now - state.lastDraw >= 0.1 { draw(&state, now: now) }
        return
      }
      state.line.label = label
      state.line.bytesReceived = received
      state.line.bytesExpected = expected
      let elapsed = now - state.started
      if elapsed > 0.2 { state.line.bytesPerSecond = Double(state.batchBytes + received) / elapsed }
      if let total = state.total { state.line.items = (state.done, total) }
      if now - state.lastDraw >= 0.1 || (expected != nil && received >= expected!) { draw(&state, now: now) }
    }
  }

  /// Reports that an item finished (successfully or not).
  /// - Parameters:
  ///   - label: The item's name.
  ///   - bytes: Its size, added to the batch rate.
  ///   - failed: Whether it failed.
  public func finished(_ label: String, bytes: Int64, failed: Bool) {
    if mode == .json {
      Console.errorRaw(
        jsonLine([("event", .string("finished")), ("source", .string(label)), ("failed", .bool(failed))]) + "\n")
      return
    }
    guard drawsBar else { return }
    state.withLock { state in
      state.done += 1
      if isBatch {
        state.finishedBytes += state.inFlight.removeValue(forKey: label)?.received ?? 0
        draw(&state, now: ProgressReporter.now())
        return
      }
      state.batchBytes += bytes
      state.line.label = label
      state.line.bytesReceived = bytes
      state.line.bytesExpected = bytes
      if let total = state.total { state.line.items = (state.done, total) }
      draw(&state, now: ProgressReporter.now())
    }
  }

  /// Prints a line on standard output or error without tearing the bar: the bar is erased first
  /// and redrawn by the next update.
  /// - Parameters:
  ///   - text: The line, without a newline.
  ///   - toError: Standard error instead of standard output.
  public func print(_ text: String, toError: Bool = false) {
    state.withLock { state in
      erase(&state)
      if toError { Console.error(text) } else { Console.out(text) }
    }
  }

  /// Sets the number of items once it is known (a class count arrives after the start).
  /// - Parameter total: The number of items.
  public func setTotal(_ total: Int) { state.withLock { $0.total = total } }

  /// Whether a bar is drawn at all (so callers can skip work that only feeds it).
  public var isDrawing: Bool { drawsBar }

  /// Erases the bar (at the end, and on Ctrl-C) so the terminal is left clean.
  public func finish() {
    state.withLock { erase(&$0) }
  }

  private func draw(_ state: inout State, now: Double) {
    state.lastDraw = now
    state.drawn = true
    let text = isBatch ? batchLine(&state, now: now).render(width: width) : state.line.render(width: width)
    Console.errorRaw("\r" + text + "\u{1B}[K")
  }

  /// The batch's line now, with its fraction and bytes held at what was shown before if lower.
  private func batchLine(_ state: inout State, now: Double) -> BatchProgressLine {
    let bytes = state.inFlight.values.reduce(state.finishedBytes) { $0 + $1.received }
    state.shownBytes = Swift.max(state.shownBytes, bytes)
    var line = BatchProgressLine(done: state.done, total: state.total, bytesDownloaded: state.shownBytes)
    guard let total = state.total, total > 0 else { return line }
    let partial = state.inFlight.values.reduce(0.0) { sum, item in
      guard let expected = item.expected, expected > 0 else { return sum }
      return sum + Swift.min(1, Double(item.received) / Double(expected))
    }
    state.shownFraction = Swift.max(state.shownFraction, Swift.min(1, (Double(state.done) + partial) / Double(total)))
    line.fraction = state.shownFraction
    let elapsed = now - state.started
    if state.shownFraction > 0 && elapsed > 0 {
      line.secondsLeft = elapsed * (1 - state.shownFraction) / state.shownFraction
    }
    return line
  }

  private func erase(_ state: inout State) {
    guard state.drawn else { return }
    state.drawn = false
    Console.errorRaw("\r\u{1B}[K")
  }

  /// Seconds on a monotonic clock.
  private static func now() -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }

  private static let start = ContinuousClock.now
}
