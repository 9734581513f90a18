import Dispatch
import Foundation
import Synchronization

/// Runs blocking CPU work (decodes, thumbnails of cache hits) on threads of its own, one per
/// active core at most, so it never holds one of Swift's cooperative threads, which the downloads'
/// tasks need, nor a thread of the global dispatch pool, which URLSession's callbacks need: on
/// Linux that pool has one thread per core and cannot see that one is blocked.
///
/// Each piece of work gets a serial queue, which libdispatch gives a thread of its own even when
/// the pool is busy; work beyond the width waits in a queue of its own (no thread is blocked
/// waiting), so a library user's hundred concurrent hits start no hundred threads.
enum CPUWork {
  /// How many run at once.
  static let width = max(1, ProcessInfo.processInfo.activeProcessorCount)
  private static let gate = Mutex((running: 0, waiting: [@Sendable () -> Void]()))

  static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      submit { continuation.resume(with: Result { try body() }) }
    }
  }

  /// Starts `work` now if fewer than ``width`` are running, else when one ends.
  private static func submit(_ work: @escaping @Sendable () -> Void) {
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

  private static func start(_ work: @escaping @Sendable () -> Void) {
    DispatchQueue(label: "ImageFetch.CPUWork", qos: .userInitiated).async {
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
