import Dispatch
import Synchronization
import SystemFiles

extension Thumbnailer {
  /// Makes (or reuses) the thumbnails of many files with up to `jobs` files in progress at once,
  /// each job holding one decode at a time, so memory stays bounded by `jobs` decodes.
  ///
  /// `onResult` is called once per file, in the order of `paths`, never concurrently with itself
  /// (a result that finishes early waits for the ones before it). When `isCancelled` turns true,
  /// no new file is started; the ones in progress finish (each written completely or not at all)
  /// and the files never started get no result.
  /// - Parameters:
  ///   - paths: The source files.
  ///   - jobs: The number of files worked on at once; 1 works on the calling thread only.
  ///   - isCancelled: Asked before each file is started.
  ///   - onResult: Receives each file's index in `paths` and its outcome.
  public func makeThumbnails(
    forFilesAt paths: [String], jobs: Int, isCancelled: @escaping @Sendable () -> Bool = { false },
    onResult: @escaping @Sendable (Int, Result<ThumbnailResult, ThumbnailError>) -> Void
  ) {
    let workers = max(1, min(jobs, paths.count))
    if workers == 1 {
      for (index, path) in paths.enumerated() {
        if isCancelled() { return }
        onResult(index, outcome(path))
      }
      return
    }
    let next = Atomic<Int>(0)
    let delivery = Locked(OrderedDelivery(count: paths.count))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while true {
        guard !isCancelled() else { return }
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < paths.count else { return }
        let result = outcome(paths[index])
        delivery.withLock { $0.deliver(index, result, to: onResult) }
      }
    }
  }

  private func outcome(_ path: String) -> Result<ThumbnailResult, ThumbnailError> {
    do { return .success(try makeThumbnail(forFileAt: path)) } catch { return .failure(error) }
  }
}

/// Holds results that finished out of order until the ones before them are delivered.
struct OrderedDelivery: ~Copyable {
  private var pending: [Int: Result<ThumbnailResult, ThumbnailError>] = [:]
  private var nextToDeliver = 0
  private let count: Int

  init(count: Int) { self.count = count }

  /// Stores a result and delivers every result that is now next in order.
  mutating func deliver(
    _ index: Int, _ result: Result<ThumbnailResult, ThumbnailError>,
    to onResult: (Int, Result<ThumbnailResult, ThumbnailError>) -> Void
  ) {
    pending[index] = result
    while nextToDeliver < count, let ready = pending.removeValue(forKey: nextToDeliver) {
      onResult(nextToDeliver, ready)
      nextToDeliver += 1
    }
  }
}
