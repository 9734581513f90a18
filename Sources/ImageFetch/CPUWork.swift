import Dispatch
import FoundationEssentials
import SystemFiles

/// Runs blocking CPU work (decodes, thumbnails of cache hits, a batch's local files) on threads of
/// its own, at most ``width`` at a time, so it never holds one of Swift's cooperative threads, which
/// the downloads' tasks need, nor a thread of the global dispatch pool, which other dispatch work
/// needs: on Linux that pool has one thread per core and cannot see that one is blocked.
///
/// Each piece of work gets a serial queue, which libdispatch gives a thread of its own even when
/// the pool is busy; work beyond the width waits in a queue of its own (no thread is blocked
/// waiting), so a library user's hundred concurrent hits start no hundred threads.
package final class CPUWork: Sendable {
  /// The fetchers' runner: one piece of work per active core.
  package static let shared = CPUWork(width: ProcessInfo.processInfo.activeProcessorCount)

  /// How many run at once.
  package let width: Int
  private let gate = Locked((running: 0, waiting: [@Sendable () -> Void]()))

  /// - Parameter width: How many run at once (at least one).
  package init(width: Int) { self.width = max(1, width) }

  /// Runs `body` off the cooperative pool, when a place is free, and returns its result.
  package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      submit { continuation.resume(with: Result { try body() }) }
    }
  }

  /// Runs `body`, which cannot fail, off the cooperative pool and returns its result.
  package func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      submit { continuation.resume(returning: body()) }
    }
  }

  /// Starts `work` now if fewer than ``width`` are running, else when one ends.
  private func submit(_ work: @escaping @Sendable () -> Void) {
    let startsNow = gate.withLock { state in
      guard state.running < width else {
        state.waiting.append(work)
        return false
      }
      state.running += 1
      return true
    }
    if startsNow { start(work) }
  }

  private func start(_ work: @escaping @Sendable () -> Void) {
    DispatchQueue(label: "ImageFetch.CPUWork", qos: .userInitiated).async { [self] in
      work()
      let next = gate.withLock { state -> (@Sendable () -> Void)? in
        guard !state.waiting.isEmpty else {
          state.running -= 1
          return nil
        }
        return state.waiting.removeFirst()
      }
      if let next { start(next) }
    }
  }
}
