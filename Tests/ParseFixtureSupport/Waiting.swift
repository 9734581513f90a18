/// Waits for an event that another thread or task brings about (a transfer held, a caller joined,
/// a lock released), polling every 5 ms, with a hang guard generous enough for a loaded machine.
/// - Parameters:
///   - what: What is awaited, for the error.
///   - limit: The hang guard.
///   - condition: True once the event happened.
/// - Throws: ``WaitTimedOut`` when `limit` passes first; `CancellationError`.
public func waitUntil(
  _ what: String, limit: Duration = .seconds(30), _ condition: () throws -> Bool
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
