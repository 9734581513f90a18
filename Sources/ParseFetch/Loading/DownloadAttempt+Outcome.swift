import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension DownloadAttempt {
  /// The outcome of an exchange the delegate did not already stop.
  func finish(_ state: State, error: URLError?) -> Outcome {
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
