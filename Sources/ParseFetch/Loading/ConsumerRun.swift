import Dispatch
import SystemFiles

/// Runs one attempt's ``DownloadConsumer`` on a serial queue of its own, so its work (such as
/// decoding) overlaps the transfer, never blocks the session's delegate queue or Swift's
/// cooperative pool, and runs beside other transfers' consumers on other cores.
///
/// The consumer pulls the bytes from the `.part` file, which the delegate has already written
/// them to: a slow consumer leaves them on disk (in the page cache), never in memory, so a
/// transfer costs one read buffer however far the network runs ahead of the decoder.
final class ConsumerRun: @unchecked Sendable {
  struct State {
    var error: (any Error)?
    var abandoned = false
    /// Bytes of the file written so far.
    var written: Int64 = 0
    /// Whether a drain is queued or running.
    var draining = false
    /// The transfer has ended: `written` is the file's size.
    var complete = false
  }

  /// The most read at once when the transfer has ended and the consumer asks for the rest in one
  /// piece (``DownloadConsumer/takesTheRestAtOnce``): known to be the last, a decoder can split the
  /// work. As much as a JPEG stream keeps for its 1/8-scale decoder.
  static let lastReadSize = 32 << 20

  /// The most read from the file at a time.
  static let readSize = 1 << 18

  // The consumer, the handle and `consumed` are touched only on `queue`, one block at a time.
  private let consumer: any DownloadConsumer
  private let file: String
  private var handle: ReadableFile?
  private var consumed: Int64 = 0
  // Not targeting a global queue: a serial queue of its own gets a thread even when the global
  // pool (one thread per core on Linux, blind to blocked threads) is busy decoding, so the
  // session's callbacks, and with them the other transfers, go on meanwhile.
  private let queue = DispatchQueue(label: "ParseFetch.DownloadConsumer", qos: .userInitiated)
  private let state = Locked(State())
  private let onError: @Sendable (any Error) -> Void

  /// Starts a run whose file already holds `start` bytes (a resume), which it consumes first.
  init(
    _ consumer: any DownloadConsumer, file: String, start: Int64,
    onError: @escaping @Sendable (any Error) -> Void
  ) {
    self.consumer = consumer
    self.file = file
    self.onError = onError
    written(upTo: start)
    // The queue's thread and the file handle, made now, while the first chunk is on its way (the
    // run starts with the response's headers), so that chunk reaches the decoder without waiting
    // for either (about a millisecond of a cold fetch's time to its first decoded byte).
    queue.async { [self] in openHandle() }
  }

  deinit { handle?.close() }

  /// The consumer's error, once it threw.
  var error: (any Error)? { state.withLock { $0.error } }

  /// The file now holds `size` bytes: the consumer will take the new ones.
  func written(upTo size: Int64) {
    let start = state.withLock { state -> Bool in
      state.written = size
      guard !state.draining, state.error == nil, !state.abandoned else { return false }
      state.draining = true
      return true
    }
    if start { queue.async { [self] in drain() } }
  }

  /// After the last byte: lets the consumer take what is left and finish with the complete
  /// file; `done` gets its error.
  ///
  /// The file is complete now, so it is also flushed to disk now, beside the consumer's last work:
  /// the flush the cache does before the file may become an entry then finds nothing left to
  /// write, and the disk's latency is paid while the decoder finishes, not after it.
  func finish(done: @escaping @Sendable ((any Error)?) -> Void) {
    state.withLock { $0.complete = true }
    let path = file
    DispatchQueue(label: "ParseFetch.EarlyFlush", qos: .utility).async { try? FileSystem.flush(path) }
    queue.async { [self] in
      drain()
      if let error { return done(error) }
      do {
        handle?.close()
        handle = nil
        try consumer.finish(file: file)
        done(nil)
      } catch {
        state.withLock { $0.error = error }
        done(error)
      }
    }
  }

  /// Skips whatever is still to do: the attempt ended without a complete file.
  func abandon() { state.withLock { $0.abandoned = true } }

  /// The attempt ended without a complete file that is kept for a resume: lets the consumer take
  /// the bytes written so far, then ends the run; `done` gets its error, if those bytes made it
  /// throw (they are then not worth resuming).
  func settle(done: @escaping @Sendable ((any Error)?) -> Void) {
    queue.async { [self] in
      drain()
      state.withLock { $0.abandoned = true }
      done(error)
    }
  }

  /// Opens the file for reading ahead of the first drain; a failure is left to the drain, which
  /// opens it again and reports why it cannot.
  private func openHandle() {
    guard handle == nil, state.withLock({ $0.error == nil && !$0.abandoned }) else { return }
    handle = try? ReadableFile(path: file)
  }

  /// Consumes the bytes written and not yet consumed, a read buffer at a time.
  private func drain() {
    while true {
      let read = state.withLock { state -> (target: Int64, complete: Bool)? in
        guard state.error == nil, !state.abandoned, consumed < state.written else {
          state.draining = false
          return nil
        }
        return (state.written, state.complete)
      }
      guard let (target, complete) = read else { return }
      do {
        let file = try handle ?? ReadableFile(path: self.file)
        handle = file
        let last = complete && target - consumed <= Int64(Self.lastReadSize) && consumer.takesTheRestAtOnce
        let count = last ? Int(target - consumed) : Int(min(target - consumed, Int64(Self.readSize)))
        let chunk = try file.read(count: count, at: Int(consumed))
        guard !chunk.isEmpty else {
          throw DownloadError.file(path: self.file, reason: "it holds fewer bytes than were written to it")
        }
        if last && chunk.count == count {
          try chunk.withUnsafeBytes { try consumer.consumeLast($0) }
        } else {
          try chunk.withUnsafeBytes { try consumer.consume($0) }
        }
        consumed += Int64(chunk.count)
      } catch {
        state.withLock {
          $0.error = error
          $0.draining = false
        }
        onError(error)
        return
      }
    }
  }
}
