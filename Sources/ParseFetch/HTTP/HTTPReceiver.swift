/// Takes an exchange's answer as it arrives: the head once, then the body in pieces.
///
/// Called on the thread that drives every transfer (``TransferLoop``), one call at a time, so it must
/// not block for long: a download's receiver appends to its `.part` file and leaves decoding to
/// another queue. Redirects that the exchange follows never reach it.
protocol HTTPReceiver: AnyObject, Sendable {
  /// The answer's head; false stops the exchange (``HTTPOutcome/stopped``).
  func receive(head: HTTPResponseHead) -> Bool
  /// The next piece of the (decoded) body; false stops the exchange.
  func receive(body: UnsafeRawBufferPointer) -> Bool
}

/// How an exchange ended.
enum HTTPOutcome: Sendable {
  /// The whole answer arrived, and the receiver took all of it.
  case complete(HTTPResponseHead)
  /// The receiver stopped it.
  case stopped
  /// No answer, or one cut short: why, and the head when it had arrived.
  case failed(ConnectionError, head: HTTPResponseHead?)
  /// The exchange was cancelled.
  case cancelled
}
