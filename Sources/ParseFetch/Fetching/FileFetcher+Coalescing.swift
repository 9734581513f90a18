import FoundationEssentials

/// One transfer per key: callers join a running transfer or start one, and leave on cancellation.
extension FileFetcher {
  struct Request: Sendable {
    var url: URL
    var key: CacheKey
    var headers: [String: String]
    var headersOrigin: URL?
    var makeValidator: ValidatorFactory
  }

  struct Subscriber {
    var id: Int
    var progress: ProgressHandler?
    var continuation: CheckedContinuation<FetchedFile<Value>, any Error>
  }

  /// A running transfer and the callers waiting for it.
  struct Transfer {
    var id: Int
    var subscribers: [Int: Subscriber] = [:]
    var task: Task<Void, Never>?
  }

  func join(_ request: Request, _ subscriber: Subscriber) {
    transfers.withLock { transfers in
      // A cancellation that came before this lock was taken found nothing to cancel.
      if Task.isCancelled { return subscriber.continuation.resume(throwing: CancellationError()) }
      var transfer = transfers[request.key] ?? start(request)
      transfer.subscribers[subscriber.id] = subscriber
      transfers[request.key] = transfer
    }
  }

  /// Starts the transfer's task; called with the lock held, so the task waits for it to store.
  private func start(_ request: Request) -> Transfer {
    let id = nextID.add(1, ordering: .relaxed).newValue
    let task = Task {
      let result: Result<FetchedFile<Value>, any Error>
      do {
        result = .success(
          try await load(request) { [weak self] progress in
            self?.broadcast(progress, key: request.key, transfer: id)
          })
      } catch {
        result = .failure(error)
      }
      let waiting = transfers.withLock { transfers -> [Subscriber] in
        guard transfers[request.key]?.id == id else { return [] }
        return transfers.removeValue(forKey: request.key).map { Array($0.subscribers.values) } ?? []
      }
      for subscriber in waiting { subscriber.continuation.resume(with: result) }
    }
    return Transfer(id: id, task: task)
  }

  /// Ends one caller's wait; the last caller to leave cancels the transfer.
  func leave(_ key: CacheKey, subscriber id: Int) {
    let (subscriber, task) = transfers.withLock { transfers -> (Subscriber?, Task<Void, Never>?) in
      guard var transfer = transfers[key],
        let subscriber = transfer.subscribers.removeValue(forKey: id)
      else { return (nil, nil) }
      if transfer.subscribers.isEmpty {
        transfers[key] = nil  // a newcomer starts afresh rather than joining a dying transfer
        return (subscriber, transfer.task)
      }
      transfers[key] = transfer
      return (subscriber, nil)
    }
    subscriber?.continuation.resume(throwing: CancellationError())
    task?.cancel()
  }

  /// Runs for every chunk of every transfer: a closure, not the key path `\.progress`, which in this
  /// generic type is instantiated at run time on each call (demangling on every chunk, a measurable
  /// share of a class walk's CPU time).
  private func broadcast(_ progress: DownloadProgress, key: CacheKey, transfer id: Int) {
    let handlers = transfers.withLock { transfers in
      transfers[key]?.id == id
        ? transfers[key]?.subscribers.values.compactMap { $0.progress } ?? [] : []
    }
    for handler in handlers { handler(progress) }
  }
}
