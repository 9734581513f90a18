import Foundation
import Synchronization

/// Runs one attempt's ``DownloadConsumer`` on a serial queue of its own, so its work (such as
/// decoding) overlaps the transfer, never blocks the session's delegate queue or Swift's
/// cooperative pool, and runs beside other transfers' consumers on other cores.
final class ConsumerRun: @unchecked Sendable {
  // The consumer is touched only on `queue`, one block at a time.
  private let consumer: any DownloadConsumer
  private let queue = DispatchQueue(
    label: "ParseFetch.DownloadConsumer", target: .global(qos: .userInitiated))
  private let state = Mutex<(error: (any Error)?, abandoned: Bool)>((nil, false))
  /// Bytes handed over and not yet consumed.
  let pending = Atomic<Int>(0)

  init(_ consumer: any DownloadConsumer) { self.consumer = consumer }

  /// The consumer's error, once it threw.
  var error: (any Error)? { state.withLock { $0.error } }

  /// Hands the first `count` bytes of `file` (a resumed `.part`) to the consumer, in chunks.
  func feedPrefix(of file: URL, count: Int64, onError: @escaping @Sendable (any Error) -> Void) {
    guard count > 0 else { return }
    queue.async { [self] in
      guard isLive else { return }
      do {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var left = count
        while left > 0 {
          let chunk = try handle.read(upToCount: Int(min(left, 1 << 16))) ?? Data()
          guard !chunk.isEmpty else { throw CocoaError(.fileReadCorruptFile) }
          try chunk.withUnsafeBytes { try consumer.consume($0) }
          left -= Int64(chunk.count)
        }
      } catch {
        fail(error, onError)
      }
    }
  }

  /// Hands the next chunk to the consumer.
  func feed(_ data: Data, onError: @escaping @Sendable (any Error) -> Void) {
    pending.add(data.count, ordering: .relaxed)
    queue.async { [self] in
      defer { pending.subtract(data.count, ordering: .relaxed) }
      guard isLive else { return }
      do { try data.withUnsafeBytes { try consumer.consume($0) } } catch { fail(error, onError) }
    }
  }

  /// After every chunk: lets the consumer finish with the complete file; `done` gets its error.
  func finish(file: URL, done: @escaping @Sendable ((any Error)?) -> Void) {
    queue.async { [self] in
      if let error { return done(error) }
      do {
        try consumer.finish(file: file)
        done(nil)
      } catch {
        state.withLock { $0.error = error }
        done(error)
      }
    }
  }

  /// Skips whatever is still queued: the attempt ended without a complete file.
  func abandon() { state.withLock { $0.abandoned = true } }

  private var isLive: Bool { state.withLock { $0.error == nil && !$0.abandoned } }

  private func fail(_ error: any Error, _ onError: @Sendable (any Error) -> Void) {
    state.withLock { $0.error = error }
    onError(error)
  }
}
