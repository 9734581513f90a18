/// Waits for an event that another thread or task brings about (a transfer held, a caller joined,
/// a lock released), polling every 5 ms, with a hang guard generous enough for a loaded machine:
/// in the whole suite, synchronous tests that wait for child processes can hold every thread of
/// the cooperative pool for minutes on a 2-core machine (2.5 min seen), and the task that brings
/// the event about waits with them. The suites' 10-minute time limit stays above it.
/// - Parameters:
///   - what: What is awaited, for the error.
///   - limit: The hang guard.
///   - condition: True once the event happened.
/// - Throws: ``WaitTimedOut`` when `limit` passes first; `CancellationError`.
public func waitUntil(
  _ what: String, limit: Duration = .seconds(300), _ condition: () throws -> Bool
) async throws {
  let deadline = ContinuousClock.now + limit
  while try !condition() {
    guard ContinuousClock.now < deadline else { throw WaitTimedOut(what: what, limit: limit) }
    try await Task.sleep(for: .milliseconds(5))
  }
}

/// ``waitUntil(_:limit:_:)``'s event did not happen in time.
public struct WaitTimedOut: Error, CustomStringConvertible {
  /// What was awaited.
  public var what: String
  /// How long it was awaited.
  public var limit: Duration
  /// The error in one line.
  public var description: String { "waited \(limit) for \(what)" }
}
