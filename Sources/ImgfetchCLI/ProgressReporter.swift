import SystemFiles

/// Draws progress on standard error: a single line redrawn in place (at most ten times a second)
/// on a terminal, JSON events with `--progress json`, nothing otherwise. Safe to call from any task.
public final class ProgressReporter: Sendable {
  private struct State {
    var line = ProgressLine(label: "")
    var drawn = false
    var lastDraw: Double = 0
    var started: Double = 0
    var batchBytes: Int64 = 0
    var done = 0
    var total: Int?
  }

  private let mode: ProgressMode
  private let drawsBar: Bool
  private let width: Int
  private let state = Locked(State())

  /// Creates a reporter.
  /// - Parameters:
  ///   - mode: The `--progress` choice.
  ///   - terminal: Standard error's facts.
  ///   - total: The number of items in a batch, when known.
  init(mode: ProgressMode, terminal: Terminal, total: Int?) {
    self.mode = mode
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
    Console.errorRaw("\r" + state.line.render(width: width) + "\u{1B}[K")
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
