import CCurl
import Dispatch
import SystemFiles

/// The thread that drives every ``HTTPExchange`` of the process through one libcurl multi handle, so
/// that exchanges run side by side and share connections (a Parse object's JSON and then its file
/// from the same server reuse one). It starts with the first exchange and ends when none is left;
/// libcurl is loaded (dlopen) on the first.
///
/// Each turn: take new exchanges, let libcurl move every transfer on (the exchanges' callbacks run
/// here, one at a time), finish the transfers that are done (or start a redirect's next hop), drop
/// those cancelled, silent for their idle timeout, slower than their speed floor or past their
/// deadline (``TransferPace``), then wait for a socket, libcurl's own timer, a wake-up (``wake()``: a
/// new or cancelled exchange) or the nearest of those clocks.
final class TransferLoop: Sendable {
  /// The process's loop.
  static let shared = TransferLoop()

  /// libcurl's multi handle, made once and kept for the process.
  private struct Multi: @unchecked Sendable {
    let pointer: OpaquePointer
  }

  private struct State {
    var multi: Multi?
    var incoming: [HTTPExchange] = []
    /// Whether the loop's thread runs.
    var running = false
  }

  private let state = Locked(State())

  /// Loads libcurl and makes the multi handle now, on a thread of its own, so that a process that is
  /// about to make its first request (the command line's fetch) does not wait for the libraries to
  /// load then: meanwhile it opens its cache and starts its tasks.
  static func warmUp() {
    DispatchQueue(label: "ParseFetch.WarmUp", qos: .userInitiated).async(group: warming) { _ = shared.multiHandle() }
  }

  /// The warm-up under way, if any.
  private static let warming = DispatchGroup()

  /// Waits for a warm-up to finish. A process must not exit while libcurl and its TLS library load
  /// on another thread: their exit handlers would run against half-made state (a crash at exit,
  /// once in five runs that failed before their first request).
  static func waitForWarmUp() { warming.wait() }

  /// libcurl's multi handle, loading libcurl first; or why there is none.
  private func multiHandle() -> Result<Multi, ConnectionError> {
    var reason = [CChar](repeating: 0, count: 512)
    guard ccurl_load(&reason, reason.count) == 1 else {
      let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      return .failure(ConnectionError(kind: .unavailable, message: text))
    }
    return state.withLock { state in
      if state.multi == nil { state.multi = ccurl_multi_new().map(Multi.init) }
      guard let multi = state.multi else {
        return .failure(ConnectionError(kind: .unavailable, message: "libcurl could not make a multi handle"))
      }
      return .success(multi)
    }
  }

  /// Hands an exchange to the loop, starting its thread when none runs.
  /// - Parameter exchange: The exchange, not yet started.
  /// - Returns: nil, or why no exchange can run (libcurl missing).
  func submit(_ exchange: HTTPExchange) -> ConnectionError? {
    var reason = [CChar](repeating: 0, count: 512)
    guard ccurl_load(&reason, reason.count) == 1 else {
      let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      return ConnectionError(kind: .unavailable, message: text)
    }
    let (multi, startsThread) = state.withLock { state -> (Multi?, Bool) in
      if state.multi == nil { state.multi = ccurl_multi_new().map(Multi.init) }
      guard let multi = state.multi else { return (nil, false) }
      state.incoming.append(exchange)
      defer { state.running = true }
      return (multi, !state.running)
    }
    guard let multi else {
      return ConnectionError(kind: .unavailable, message: "libcurl could not make a multi handle")
    }
    if startsThread {
      // A serial queue of its own gets a thread even when the global pool is busy decoding.
      DispatchQueue(label: "ParseFetch.TransferLoop", qos: .userInitiated).async { self.run(multi.pointer) }
    } else {
      ccurl_multi_wakeup(multi.pointer)
    }
    return nil
  }

  /// Ends the loop's wait now (an exchange was cancelled).
  func wake() {
    if let multi = state.withLock({ $0.multi }) { ccurl_multi_wakeup(multi.pointer) }
  }

  private func run(_ multi: OpaquePointer) {
    var active: [OpaquePointer: HTTPExchange] = [:]
    func settle(_ exchange: HTTPExchange, _ outcome: HTTPOutcome?) {
      if let outcome {
        exchange.complete(outcome)
      } else if let transfer = exchange.transfer {
        active[transfer] = exchange
      }
    }
    while true {
      let taken = state.withLock { state -> [HTTPExchange]? in
        if state.incoming.isEmpty && active.isEmpty {
          state.running = false
          return nil
        }
        defer { state.incoming = [] }
        return state.incoming
      }
      guard let taken else { return }
      for exchange in taken {
        settle(exchange, exchange.isCancelled ? .cancelled : exchange.startHop(in: multi))
      }
      _ = ccurl_multi_perform(multi)
      while let done = ccurl_multi_next_done(multi) {
        guard let exchange = active.removeValue(forKey: done) else { continue }
        var message = [CChar](repeating: 0, count: 512)
        let result = ccurl_transfer_outcome(done, &message, message.count)
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        settle(exchange, exchange.finishHop(result, message: text, in: multi))
      }
      let now = ContinuousClock.now
      var nearest = now + .seconds(1)
      for (transfer, exchange) in active {
        let reason = exchange.isCancelled ? nil : exchange.overdue(at: now)
        if exchange.isCancelled || reason != nil {
          active[transfer] = nil
          exchange.complete(exchange.abandonHop(reason))
        } else {
          nearest = min(nearest, exchange.nextCheck)
        }
      }
      // An exchange whose receiver stopped it, or a new hop just started, wants a turn at once.
      let wait = max(.zero, nearest - now)
      let milliseconds = Int32(
        min(1000, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1))
      _ = ccurl_multi_poll(multi, active.isEmpty ? 0 : milliseconds)
    }
  }
}
