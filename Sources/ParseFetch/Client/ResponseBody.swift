import SystemFiles

/// Keeps a REST answer's head and body in memory, up to a limit: what ``ParseClient`` reads.
final class ResponseBody: HTTPReceiver {
  /// The most bytes kept; a longer answer stops the exchange.
  let limit: Int
  private let state = Locked((head: HTTPResponseHead?.none, bytes: [UInt8](), overLimit: false))

  init(limit: Int) { self.limit = limit }

  /// The head, the bytes, and whether the answer went over the limit (and was stopped).
  var contents: (head: HTTPResponseHead?, bytes: [UInt8], overLimit: Bool) { state.withLock { $0 } }

  func receive(head: HTTPResponseHead) -> Bool {
    state.withLock { $0.head = head }
    return true
  }

  func receive(body: UnsafeRawBufferPointer) -> Bool {
    state.withLock { state in
      guard state.bytes.count + body.count <= limit else {
        state.overLimit = true
        return false
      }
      state.bytes += body
      return true
    }
  }
}
