import Dispatch

/// Runs blocking CPU work (decodes, thumbnails of cache hits) on a queue of its own, so it never
/// holds one of Swift's cooperative threads, which the downloads' tasks need.
enum CPUWork {
  private static let queue = DispatchQueue(
    label: "ImageFetch.CPUWork", qos: .userInitiated, attributes: .concurrent)

  static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      queue.async { continuation.resume(with: Result { try body() }) }
    }
  }
}
