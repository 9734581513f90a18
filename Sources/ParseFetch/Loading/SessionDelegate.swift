import Foundation
import SystemFiles

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// Routes a session's data-task callbacks to the ``DownloadAttempt`` that owns each task.
///
/// Per-task delegates (`URLSessionTask.delegate`) are not called by FoundationNetworking on
/// Linux, so the session gets this one delegate and it forwards by task identifier.
final class SessionDelegate: NSObject, URLSessionDataDelegate, URLSessionTaskDelegate, Sendable {
  private let attempts = Locked<[Int: DownloadAttempt]>([:])

  func register(_ attempt: DownloadAttempt, for task: URLSessionTask) {
    attempts.withLock { $0[task.taskIdentifier] = attempt }
  }

  private func attempt(for task: URLSessionTask) -> DownloadAttempt? {
    attempts.withLock { $0[task.taskIdentifier] }
  }

  func urlSession(
    _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
  ) {
    guard let attempt = attempt(for: dataTask) else { return completionHandler(.cancel) }
    attempt.urlSession(
      session, dataTask: dataTask, didReceive: response, completionHandler: completionHandler)
  }

  func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
    attempt(for: dataTask)?.urlSession(session, dataTask: dataTask, didReceive: data)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask,
    willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
    completionHandler: @escaping @Sendable (URLRequest?) -> Void
  ) {
    guard let attempt = attempt(for: task) else { return completionHandler(nil) }
    attempt.urlSession(
      session, task: task, willPerformHTTPRedirection: response, newRequest: request,
      completionHandler: completionHandler)
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    let attempt = attempts.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    attempt?.urlSession(session, task: task, didCompleteWithError: error)
  }
}
