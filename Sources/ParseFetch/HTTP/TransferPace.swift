/// The three clocks of an exchange, which the transfer loop reads each turn: the idle timeout (nothing
/// arrived for that long), the speed floor (less than the minimum speed, averaged over each window of
/// the idle timeout's length, once the hop's first byte came) and the deadline of the whole exchange.
///
/// The idle timeout alone lets a server that sends a byte every few seconds hold a transfer for ever;
/// the floor ends it after one window, and the deadline bounds everything else (a fast but endless
/// answer that no size limit stops, a chain of slow redirects).
struct TransferPace {
  /// How long nothing may arrive; also the length of the speed floor's window.
  let idleTimeout: Duration
  /// Bytes a second, averaged over a window; 0 for no floor.
  let minimumSpeed: Int
  /// The moment the exchange must have ended by, or nil.
  let deadline: ContinuousClock.Instant?
  /// The deadline's length, for the message.
  private let allowed: Duration?

  /// When the last byte (or the hop's start) came.
  private(set) var lastActivity: ContinuousClock.Instant
  /// When the current window of the speed floor began: the hop's first byte; nil before it (the
  /// wait for an answer is the idle timeout's).
  private var windowStart: ContinuousClock.Instant?
  private var windowBytes = 0

  /// The clocks of an exchange that starts now.
  /// - Parameters:
  ///   - idleTimeout: How long nothing may arrive.
  ///   - minimumSpeed: The floor in bytes a second, 0 for none.
  ///   - deadline: How long the whole exchange may take, nil for no limit.
  ///   - now: The exchange's start.
  init(idleTimeout: Duration, minimumSpeed: Int, deadline: Duration?, now: ContinuousClock.Instant) {
    self.idleTimeout = idleTimeout
    self.minimumSpeed = minimumSpeed
    allowed = deadline
    self.deadline = deadline.map { now + $0 }
    lastActivity = now
  }

  /// A new hop (a redirect's next request) starts: its answer gets a fresh idle timer and window.
  mutating func startHop(at now: ContinuousClock.Instant) {
    lastActivity = now
    (windowStart, windowBytes) = (nil, 0)
  }

  /// Bytes of the answer (header lines or body) arrived.
  mutating func arrived(_ count: Int, at now: ContinuousClock.Instant) {
    lastActivity = now
    if windowStart == nil { windowStart = now }
    windowBytes += count
  }

  /// The next moment at which ``overdue(at:)`` may have something to say.
  var nextCheck: ContinuousClock.Instant {
    var next = lastActivity + idleTimeout
    if minimumSpeed > 0, let windowStart { next = min(next, windowStart + idleTimeout) }
    if let deadline { next = min(next, deadline) }
    return next
  }

  /// Why the exchange must end now, or nil; a window that met the floor makes way for the next.
  mutating func overdue(at now: ContinuousClock.Instant) -> ConnectionError? {
    if let deadline, let allowed, now >= deadline {
      return ConnectionError(
        kind: .deadlineExceeded, message: "the answer took longer than the \(allowed.seconds.formatted3) s limit")
    }
    if now >= lastActivity + idleTimeout {
      return ConnectionError(kind: .timedOut, message: "nothing arrived for \(idleTimeout.seconds.formatted3) s")
    }
    if minimumSpeed > 0, let start = windowStart, now >= start + idleTimeout {
      let window = (now - start).seconds
      guard Double(windowBytes) >= Double(minimumSpeed) * idleTimeout.seconds else {
        return ConnectionError(
          kind: .tooSlow,
          message:
            "the answer came slower than \(minimumSpeed) bytes/s (\(windowBytes) bytes in \(window.formatted3) s)")
      }
      (windowStart, windowBytes) = (now, 0)
    }
    return nil
  }
}

extension Duration {
  /// The length in seconds, fractions included.
  var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
