import Dispatch

/// Runs the blocking work a batch does on files on this machine (decoding a local file, reading a
/// cached file's header, making a thumbnail the download did not make) on threads of its own, at
/// most `width` at a time, so that it never holds one of Swift's cooperative threads nor a thread
/// of the width-limited global queues that URLSession's callbacks need: the downloads go on
/// meanwhile (issue 13.8).
///
/// Each call gets a serial queue of its own: libdispatch gives such a queue a thread even when
/// every thread of the global pool (one per core on Linux, which cannot see a blocked thread) is
/// busy.
final class LocalWork: Sendable {
  private let slots: DispatchSemaphore

  /// - Parameter width: How many run at once (the batch's `--jobs`).
  init(width: Int) { slots = DispatchSemaphore(value: max(1, width)) }

  /// Runs `body` off the cooperative pool and returns its result.
  func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      DispatchQueue(label: "imgfetch.LocalWork", qos: .userInitiated).async { [slots] in
        slots.wait()
        let result = body()
        slots.signal()
        continuation.resume(returning: result)
      }
    }
  }
}
