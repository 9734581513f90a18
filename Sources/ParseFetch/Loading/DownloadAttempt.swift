import Foundation
import SystemFiles

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One HTTP exchange of a download: a data task whose delegate appends each chunk to the
/// `.part` file, so memory stays flat and the bytes survive for a later resume.
final class DownloadAttempt: Sendable {
  /// How the exchange ended.
  enum Outcome: Sendable {
    /// The `.part` file holds the whole body, this many bytes.
    case complete(Int64)
    /// The server did not continue the partial file; start again from byte 0.
    case restart
    case failed(DownloadError)
    case cancelled
    /// The consumer rejected the file; its error.
    case rejected(any Error)
  }

  struct Parameters: Sendable {
    var request: URLRequest
    /// Credentials that go only to their origin, across redirects too.
    var headers: ScopedHeaders
    var partFile: String
    var offset: Int64
    var maximumBytes: Int64
    var idleTimeout: TimeInterval
    var progress: ProgressHandler?
    var consumer: DownloadConsumerFactory?
  }

  struct State {
    var task: URLSessionDataTask?
    var continuation: CheckedContinuation<Outcome, Never>?
    var cancelled = false
    var writer: PartFileWriter?
    var consumer: ConsumerRun?
    var expectedTotal: Int64?
    var errorStatus: (status: Int, retryAfter: Duration?)?
    var errorBody = Data()
    var verdict: Outcome?
    var lastActivity = ContinuousClock.now
  }

  let parameters: Parameters
  let state = Locked(State())
  var url: String { parameters.request.url?.redactedForLog ?? "?" }

  init(_ parameters: Parameters) { self.parameters = parameters }

  /// Runs the exchange; a cancelled Swift task cancels the data task at once.
  func run(in session: URLSession, delegate: SessionDelegate) async -> Outcome {
    let watchdog = startWatchdog()
    defer { watchdog.cancel() }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let task = session.dataTask(with: parameters.request)
        delegate.register(self, for: task)
        let cancelled = state.withLock {
          $0.task = task
          $0.continuation = continuation
          if Task.isCancelled { $0.cancelled = true }
          return $0.cancelled
        }
        cancelled ? task.cancel() : task.resume()
      }
    } onCancel: {
      state.withLock {
        $0.cancelled = true
        return $0.task
      }?.cancel()
    }
  }

  // The callbacks below are forwarded by ``SessionDelegate``.

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    let decision = decide(
      response as? HTTPURLResponse, offset: parameters.offset,
      maximumBytes: parameters.maximumBytes, url: url)
    state.withLock { state in
      state.lastActivity = .now
      switch decision {
      case .write(let start, let total):
        do {
          state.writer = try PartFileWriter(parameters.partFile, keeping: start)
          state.expectedTotal = total
          if let make = parameters.consumer {
            state.consumer = ConsumerRun(make(), file: parameters.partFile, start: start) {
              [weak self] in self?.reject($0)
            }
          }
        } catch {
          state.verdict = .failed(.file(path: parameters.partFile, reason: "\(error)"))
        }
      case .collectError(let status, let retryAfter): state.errorStatus = (status, retryAfter)
      case .stop(let outcome): state.verdict = outcome
      }
    }
    completionHandler(state.withLock { $0.verdict == nil } ? .allow : .cancel)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    let progress = state.withLock { state -> DownloadProgress? in
      guard state.verdict == nil else { return nil }
      state.lastActivity = .now
      guard let writer = state.writer else {
        if state.errorBody.count < 4096 { state.errorBody.append(data.prefix(4096)) }
        return nil
      }
      let size = writer.size + Int64(data.count)
      if size > parameters.maximumBytes {
        state.verdict = .failed(.tooLarge(url: url, limit: parameters.maximumBytes))
      } else if let total = state.expectedTotal, size > total {
        state.verdict =
          parameters.offset > 0
          ? .restart : .failed(.unusableResponse(url: url, reason: "more bytes than announced"))
      } else {
        do {
          try writer.append(data)
          state.consumer?.written(upTo: writer.size)
        } catch {
          state.verdict = .failed(.file(path: parameters.partFile, reason: "\(error)"))
        }
      }
      return state.verdict == nil
        ? DownloadProgress(bytesReceived: size, bytesExpected: state.expectedTotal) : nil
    }
    if let progress {
      parameters.progress?(progress)
    } else if state.withLock({ $0.verdict != nil }) {
      dataTask.cancel()
    }
  }

  /// Follows a redirect with the scoped headers only when it stays on their origin.
  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    completionHandler(parameters.headers.applied(to: request))
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    let (continuation, outcome, consumer) = state.withLock { state in
      state.writer?.close()
      let outcome = state.verdict ?? finish(state, error: error as? URLError)
      defer { state.continuation = nil }
      return (state.continuation, outcome, state.consumer)
    }
    guard case .complete = outcome, let consumer else {
      consumer?.abandon()
      continuation?.resume(returning: outcome)
      return
    }
    // The verdict follows the last chunk through the consumer's queue.
    consumer.finish { error in
      continuation?.resume(returning: error.map { .rejected($0) } ?? outcome)
    }
  }

  /// The consumer threw: the file is rejected and the transfer stops at once.
  private func reject(_ error: any Error) {
    state.withLock { state -> URLSessionDataTask? in
      guard state.verdict == nil else { return nil }
      state.verdict = .rejected(error)
      return state.task
    }?.cancel()
  }
}
