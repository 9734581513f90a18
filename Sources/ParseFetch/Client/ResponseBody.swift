import SystemFiles

/// Keeps a REST answer's head and body in memory, up to a limit: what ``ParseClient`` reads.
///
/// An answer that is not a 2xx is an error, whose body only gives the message: it is kept to
/// ``errorLimit`` bytes and the exchange stops there (``errorCut``), so an endless error body ends.
final class ResponseBody: HTTPReceiver {
  /// The most bytes kept; a longer answer stops the exchange.
  let limit: Int
  /// The most bytes of an error answer's body kept.
  static let errorLimit = 4096
  private let state = Locked(
    (head: HTTPResponseHead?.none, bytes: [UInt8](), overLimit: false, errorCut: false))

  init(limit: Int) { self.limit = limit }

  /// The head, the bytes, whether the answer went over the limit (and was stopped), and whether
  /// an error answer's body was cut at ``errorLimit`` (the exchange stopped; what was kept is the
  /// message).
  var contents: (head: HTTPResponseHead?, bytes: [UInt8], overLimit: Bool, errorCut: Bool) {
    state.withLock { $0 }
  }

  func receive(head: HTTPResponseHead) -> Bool {
    state.withLock { $0.head = head }
    return true
  }

  func receive(body: UnsafeRawBufferPointer) -> Bool {
    state.withLock { state in
      if let status = state.head?.status, !(200..<300).contains(status) {
        state.bytes += body.prefix(max(0, Self.errorLimit - state.bytes.count))
        state.errorCut = state.bytes.count >= Self.errorLimit
        return !state.errorCut
      }
      guard state.bytes.count + body.count <= limit else {
        state.overLimit = true
        return false
      }
      state.bytes += body
      return true
    }
  }
}
