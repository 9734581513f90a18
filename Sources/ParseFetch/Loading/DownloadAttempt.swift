import Foundation
import Synchronization

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
  }

  struct Parameters: Sendable {
    var request: URLRequest
    var partFile: URL
    var offset: Int64
    var maximumBytes: Int64
    var idleTimeout: TimeInterval
    var progress: ProgressHandler?
  }

  private struct State {
    var task: URLSessionDataTask?
    var continuation: CheckedContinuation<Outcome, Never>?
    var cancelled = false
    var writer: PartFileWriter?
    var expectedTotal: Int64?
    var errorStatus: (status: Int, retryAfter: Duration?)?
    var errorBody = Data()
    var verdict: Outcome?
    var lastActivity = ContinuousClock.now
  }

  private let parameters: Parameters
  private let state = Mutex(State())
  private var url: String { parameters.request.url?.redactedForLog ?? "?" }

  init(_ parameters: Parameters) { self.parameters = parameters }

  /// Fails the attempt when nothing arrived for the idle timeout. URLSession's own
  /// `timeoutIntervalForRequest` did not fire reliably on Linux once a body had started.
  /// A dispatch timer, not a Swift task, so a busy cooperative pool cannot delay it.
  private func startWatchdog() -> DispatchSourceTimer {
    let limit = Duration.milliseconds(Int(parameters.idleTimeout * 1000))
    let timer = DispatchSource.makeTimerSource(queue: .global())
    timer.schedule(deadline: .now(), repeating: max(0.05, parameters.idleTimeout / 8))
    timer.setEventHandler { [weak self] in
      guard let self else { return }
      let silent = state.withLock { state -> URLSessionDataTask? in
        guard state.verdict == nil, ContinuousClock.now - state.lastActivity > limit else {
          return nil
        }
        state.verdict = .failed(.idleTimeout(url: url, seconds: parameters.idleTimeout))
        return state.task
      }
      silent?.cancel()
    }
    timer.resume()
    return timer
  }

  // The callbacks below are forwarded by ``SessionDelegate``.

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
          return $0.cancelled || Task.isCancelled
        }
        if cancelled { state.withLock { $0.cancelled = true } }
        cancelled ? task.cancel() : task.resume()
      }
    } onCancel: {
      state.withLock {
        $0.cancelled = true
        return $0.task
      }?.cancel()
    }
  }

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
        } catch {
          state.verdict = .failed(.file(path: parameters.partFile.path, reason: "\(error)"))
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
        do { try writer.append(data) } catch {
          state.verdict = .failed(.file(path: parameters.partFile.path, reason: "\(error)"))
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

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    let (continuation, outcome) = state.withLock { state in
      state.writer?.close()
      let outcome = state.verdict ?? finish(state, error: error as? URLError)
      defer { state.continuation = nil }
      return (state.continuation, outcome)
    }
    continuation?.resume(returning: outcome)
  }

  /// The outcome of an exchange the delegate did not already stop.
  private func finish(_ state: State, error: URLError?) -> Outcome {
    if state.cancelled { return .cancelled }
    let received = state.writer?.size ?? 0
    if let error {
      if let total = state.expectedTotal, received < total {
        return .failed(.truncated(url: url, received: received, expected: total))
      }
      if error.code == .timedOut {
        return .failed(.idleTimeout(url: url, seconds: parameters.idleTimeout))
      }
      return .failed(.connection(url: url, error))
    }
    if let (status, retryAfter) = state.errorStatus {
      let excerpt = ParseError.excerpt(of: state.errorBody)
      return .failed(
        .httpStatus(url: url, status: status, excerpt: excerpt, retryAfter: retryAfter))
    }
    if let total = state.expectedTotal, received != total {
      return .failed(.truncated(url: url, received: received, expected: total))
    }
    return .complete(received)
  }
}
