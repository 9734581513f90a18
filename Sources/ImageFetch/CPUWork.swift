import Dispatch

/// Runs blocking CPU work (decodes, thumbnails of cache hits) on a thread of its own, so it never
/// holds one of Swift's cooperative threads, which the downloads' tasks need, nor a thread of the
/// global dispatch pool, which URLSession's callbacks need: on Linux that pool has one thread per
/// core and cannot see that one is blocked. Each call gets a serial queue, which libdispatch gives
/// a thread of its own when the pool is busy; callers bound how many run (decode slots, a batch's
/// items in flight).
enum CPUWork {
  static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      DispatchQueue(label: "ImageFetch.CPUWork", qos: .userInitiated).async {
        continuation.resume(with: Result { try body() })
      }
    }
  }
}
