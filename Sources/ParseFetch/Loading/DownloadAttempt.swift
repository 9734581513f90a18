import FoundationEssentials
import SystemFiles

/// One HTTP exchange of a download (across the redirects it follows): the receiver appends each
/// piece of the body to the `.part` file, so memory stays flat and the bytes survive for a later
/// resume, and hands the file on to the attempt's ``DownloadConsumer`` as it grows.
final class DownloadAttempt: HTTPReceiver {
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
    var url: URL
    /// Credentials that go only to their origin, across redirects too.
    var headers: ScopedHeaders
    var partFile: String
    var offset: Int64
    var maximumBytes: Int64
    var idleTimeout: TimeInterval
    var minimumSpeed: Int
    var maximumDuration: TimeInterval
    var progress: ProgressHandler?
    var consumer: DownloadConsumerFactory?
  }

  struct State {
    var writer: WritableFile?
    var consumer: ConsumerRun?
    var expectedTotal: Int64?
    var errorStatus: (status: Int, retryAfter: Duration?)?
    var errorBody: [UInt8] = []
    var verdict: Outcome?
  }

  /// The most bytes of an error answer's body read (the start of the message); the exchange ends
  /// there.
  static let errorBodyBytes = 4096

  let parameters: Parameters
  let state = Locked(State())
  private let exchange = Locked<HTTPExchange?>(nil)
  var url: String { parameters.url.redactedForLog }

  init(_ parameters: Parameters) { self.parameters = parameters }

  /// Runs the exchange; a cancelled Swift task cancels it at once.
  func run() async -> Outcome {
    // A resume asks for the stored bytes themselves: no content encoding.
    let resuming = parameters.offset > 0
    let fixed =
      resuming
      ? [
        HeaderField(name: "Range", value: "bytes=\(parameters.offset)-"),
        HeaderField(name: "Accept-Encoding", value: "identity"),
      ]
      : []
    let scoped = parameters.headers
    let request = HTTPRequest(
      url: parameters.url, fields: fixed + scoped.fields(for: parameters.url),
      redirects: RedirectRule { fixed + scoped.fields(for: $0) },
      idleTimeout: .milliseconds(Int((parameters.idleTimeout * 1000).rounded(.up))),
      minimumSpeed: max(0, parameters.minimumSpeed),
      deadline: parameters.maximumDuration > 0
        ? .milliseconds(Int((parameters.maximumDuration * 1000).rounded(.up))) : nil,
      decodesContent: !resuming)
    let exchange = HTTPExchange(request, receiver: self)
    self.exchange.withLock { $0 = exchange }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        exchange.start { [self] result in ended(result) { continuation.resume(returning: $0) } }
      }
    } onCancel: {
      exchange.cancel()
    }
  }

  /// The exchange ended (on the transfer loop's thread, right after the last byte): the outcome, which
  /// for a complete file follows the consumer's last work through its queue.
  private func ended(_ result: HTTPOutcome, reply: @escaping @Sendable (Outcome) -> Void) {
    exchange.withLock { $0 = nil }  // the exchange holds this receiver: no cycle outlives it
    let (outcome, consumer) = state.withLock { state in
      state.writer?.close()
      return (state.verdict ?? finish(result, state), state.consumer)
    }
    guard case .complete = outcome, let consumer else {
      // What is kept for a resume must be worth resuming: the consumer judges the bytes it has not
      // seen yet (a body of garbage cut short by the connection is no image, and is not kept).
      if case .failed(let error) = outcome, error.keepsPartialData, let consumer {
        return consumer.settle { rejection in reply(rejection.map { .rejected($0) } ?? outcome) }
      }
      consumer?.abandon()
      return reply(outcome)
    }
    consumer.finish { error in reply(error.map { .rejected($0) } ?? outcome) }
  }

  /// The outcome of an exchange the receiver did not already stop.
  private func finish(_ result: HTTPOutcome, _ state: State) -> Outcome {
    let received = state.writer?.size ?? 0
    switch result {
    case .cancelled: return .cancelled
    case .stopped: return .failed(.unusableResponse(url: url, reason: "stopped"))
    case .failed(let error, _):
      // Too slow or too long is the client's verdict, not a body cut short: it says so.
      if error.kind == .tooSlow || error.kind == .deadlineExceeded { return .failed(.connection(url: url, error)) }
      if let total = state.expectedTotal, received < total {
        return .failed(.truncated(url: url, received: received, expected: total))
      }
      if error.kind == .timedOut { return .failed(.idleTimeout(url: url, seconds: parameters.idleTimeout)) }
      return .failed(.connection(url: url, error))
    case .complete:
      if let (status, retryAfter) = state.errorStatus {
        let excerpt = ParseError.excerpt(of: state.errorBody)
        return .failed(.httpStatus(url: url, status: status, excerpt: excerpt, retryAfter: retryAfter))
      }
      if let total = state.expectedTotal, received != total {
        return .failed(.truncated(url: url, received: received, expected: total))
      }
      return .complete(received)
    }
  }

  // MARK: HTTPReceiver (on the transfer loop's thread)

  func receive(head: HTTPResponseHead) -> Bool {
    let decision = decide(head, offset: parameters.offset, maximumBytes: parameters.maximumBytes, url: url)
    return state.withLock { state in
      switch decision {
      case .write(let start, let total):
        do throws(SystemError) {
          state.writer = try WritableFile(appendingTo: parameters.partFile, keeping: start)
          state.expectedTotal = total
          if let make = parameters.consumer {
            state.consumer = ConsumerRun(make(), file: parameters.partFile, start: start) { [weak self] in
              self?.reject($0)
            }
          }
        } catch {
          state.verdict = .failed(.file(path: parameters.partFile, reason: error.message))
        }
      case .collectError(let status, let retryAfter): state.errorStatus = (status, retryAfter)
      case .stop(let outcome): state.verdict = outcome
      }
      return state.verdict == nil
    }
  }

  func receive(body: UnsafeRawBufferPointer) -> Bool {
    let chunk = BorrowedBytes(body)
    let progress = state.withLock { state -> DownloadProgress? in
      let body = chunk.buffer
      guard state.verdict == nil else { return nil }
      guard let writer = state.writer else {
        // An error answer: its start is the message; the rest (which may never end) is not read.
        state.errorBody += body.prefix(max(0, Self.errorBodyBytes - state.errorBody.count))
        if state.errorBody.count >= Self.errorBodyBytes, let (status, retryAfter) = state.errorStatus {
          let excerpt = ParseError.excerpt(of: state.errorBody)
          state.verdict = .failed(.httpStatus(url: url, status: status, excerpt: excerpt, retryAfter: retryAfter))
        }
        return nil
      }
      let size = writer.size + Int64(body.count)
      if size > parameters.maximumBytes {
        state.verdict = .failed(.tooLarge(url: url, limit: parameters.maximumBytes))
      } else if let total = state.expectedTotal, size > total {
        state.verdict =
          parameters.offset > 0
          ? .restart : .failed(.unusableResponse(url: url, reason: "more bytes than announced"))
      } else {
        do throws(SystemError) {
          try writer.append(body)
          state.consumer?.written(upTo: writer.size)
        } catch {
          state.verdict = .failed(.file(path: parameters.partFile, reason: error.message))
        }
      }
      return state.verdict == nil
        ? DownloadProgress(bytesReceived: size, bytesExpected: state.expectedTotal) : nil
    }
    if let progress {
      parameters.progress?(progress)
      return true
    }
    return state.withLock { $0.verdict == nil }
  }

  /// The consumer threw: the file is rejected and the transfer stops at once.
  private func reject(_ error: any Error) {
    let stopped = state.withLock { state -> Bool in
      guard state.verdict == nil else { return false }
      state.verdict = .rejected(error)
      return true
    }
    if stopped { exchange.withLock { $0 }?.cancel() }
  }
}

/// A buffer lent for the length of one call, as libcurl lends a body's pieces: read during the call,
/// never kept (what must outlast it is copied).
struct BorrowedBytes: @unchecked Sendable {
  let buffer: UnsafeRawBufferPointer
  init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }
}
