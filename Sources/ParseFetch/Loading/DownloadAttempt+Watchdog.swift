import Foundation
import Synchronization

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension DownloadAttempt {
  /// Fails the attempt when nothing arrived for the idle timeout. URLSession's own
  /// `timeoutIntervalForRequest` did not fire reliably on Linux once a body had started.
  /// A dispatch timer, not a Swift task, so a busy cooperative pool cannot delay it.
  func startWatchdog() -> DispatchSourceTimer {
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
}
