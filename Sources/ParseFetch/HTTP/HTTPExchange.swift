import CCurl
import FoundationEssentials
import ImgfetchVersion
import SystemFiles

/// One request and its answer, across the redirects it follows: what ParseFetch's REST client and
/// downloader send, through libcurl (``TransferLoop`` drives every exchange of the process).
///
/// ```swift
/// let outcome = await HTTPExchange(request, receiver: body).run()
/// ```
///
/// The answer's head and body go to the ``HTTPReceiver`` as they arrive. A redirect (301, 302, 303,
/// 307, 308 with a `Location` to http or https) is followed when the request's ``RedirectRule``
/// gives the next request's fields, up to 20 in a row; otherwise the redirect is the answer. A
/// followed redirect's body is read to at most 64 KiB (so that a short one leaves the connection
/// reusable), then the hop is dropped and the redirect followed. The exchange fails when nothing
/// arrives for the idle timeout, when the answer comes slower than the request's speed floor, or at
/// its deadline (``TransferPace``), and ends at once, with ``HTTPOutcome/cancelled``, when its task
/// (or ``cancel()``) cancels it.
final class HTTPExchange: @unchecked Sendable {
  /// The most redirects followed in a row.
  static let maximumRedirects = 20
  /// The most bytes of header lines one answer may have.
  static let maximumHeadBytes = 256 << 10
  /// The most bytes of a followed redirect's body read before its hop is dropped.
  static let maximumRedirectBodyBytes = 64 << 10

  let request: HTTPRequest
  let receiver: any HTTPReceiver

  private struct Control {
    var cancelled = false
    var completion: (@Sendable (HTTPOutcome) -> Void)?
  }

  private let control = Locked(Control())

  // The state of the current hop: touched only on the loop's thread, one callback at a time
  // (hence `@unchecked Sendable`).
  /// The libcurl transfer of the current hop, while it runs.
  var transfer: OpaquePointer?
  /// The current hop's URL and fields.
  private(set) var url: URL
  private var fields: [HeaderField]
  private var redirects = 0
  private var head = HTTPResponseHead(status: 0, fields: [])
  private var headBytes = 0
  private var headDelivered = false
  /// The redirect this hop's answer leads to, with the next request's fields.
  private var next: (url: URL, fields: [HeaderField])?
  private var stoppedByReceiver = false
  private var headTooLarge = false
  /// The bytes of the current redirect's body read so far, and whether the hop was dropped at the
  /// limit (the redirect is then followed).
  private var redirectBodyBytes = 0
  private var redirectBodyCut = false
  /// The idle timeout, speed floor and deadline; made when the first hop starts.
  private var pace: TransferPace?

  /// An exchange, not yet sent.
  /// - Parameters:
  ///   - request: The first request.
  ///   - receiver: Takes the answer.
  init(_ request: HTTPRequest, receiver: any HTTPReceiver) {
    self.request = request
    self.receiver = receiver
    url = request.url
    fields = request.fields
  }

  /// Sends the request and waits for the outcome; cancelling the task cancels the exchange.
  /// - Returns: How it ended.
  func run() async -> HTTPOutcome {
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
    } onCancel: {
      cancel()
    }
  }

  /// Sends the request; `completion` gets the outcome, once, on the transfer loop's thread (right
  /// after the receiver's last call), so what must follow the last byte at once need not wait for a
  /// task to be scheduled.
  /// - Parameter completion: Takes the outcome; it must not block.
  func start(completion: @escaping @Sendable (HTTPOutcome) -> Void) {
    control.withLock { $0.completion = completion }
    if let error = TransferLoop.shared.submit(self) { complete(.failed(error, head: nil)) }
  }

  /// Stops the exchange from any thread; it ends with ``HTTPOutcome/cancelled`` unless it had ended.
  func cancel() {
    control.withLock { $0.cancelled = true }
    TransferLoop.shared.wake()
  }

  /// Whether ``cancel()`` was called.
  var isCancelled: Bool { control.withLock { $0.cancelled } }

  /// Hands the outcome to the completion, once.
  func complete(_ outcome: HTTPOutcome) {
    control.withLock { control in
      defer { control.completion = nil }
      return control.completion
    }?(outcome)
  }

  /// The next moment the loop must look at this exchange's clocks (``overdue(at:)``).
  var nextCheck: ContinuousClock.Instant { pace?.nextCheck ?? .now }

  /// Why the current hop must end now (silent, too slow, past the deadline), or nil.
  func overdue(at now: ContinuousClock.Instant) -> ConnectionError? { pace?.overdue(at: now) }

  // MARK: The loop's side

  /// Makes and adds the current hop's transfer.
  /// - Returns: nil when it runs, else the exchange's outcome.
  func startHop(in multi: OpaquePointer) -> HTTPOutcome? {
    guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      return .failed(
        ConnectionError(kind: .invalidRequest, message: "\(url.redactedForLog) is not an http(s) URL"), head: nil)
    }
    var lines = ""
    for field in fields {
      let text = field.name + field.value
      guard !text.utf8.contains(where: { $0 == 10 || $0 == 13 || $0 == 0 }), !field.name.contains(":") else {
        return .failed(
          ConnectionError(kind: .invalidRequest, message: "the \(field.name) header holds a line break or a NUL"),
          head: nil)
      }
      lines += "\(field.name): \(field.value)\n"
    }
    (head, headBytes, headDelivered, next, stoppedByReceiver, headTooLarge) =
      (HTTPResponseHead(status: 0, fields: []), 0, false, nil, false, false)
    (redirectBodyBytes, redirectBodyCut) = (0, false)
    let now = ContinuousClock.now
    if pace == nil {
      pace = TransferPace(
        idleTimeout: request.idleTimeout, minimumSpeed: request.minimumSpeed, deadline: request.deadline, now: now)
    }
    pace?.startHop(at: now)
    let context = Unmanaged.passUnretained(self).toOpaque()
    guard
      let made = ccurl_transfer_new(
        url.absoluteString, lines, ImgfetchVersion.userAgent, request.decodesContent ? 1 : 0, receiveHeaderLine,
        receiveBodyBytes, context)
    else { return .failed(ConnectionError(kind: .other, message: "libcurl could not make a request"), head: nil) }
    guard ccurl_multi_add(multi, made) == 0 else {
      ccurl_transfer_free(made)
      return .failed(ConnectionError(kind: .other, message: "libcurl could not start a request"), head: nil)
    }
    transfer = made
    return nil
  }

  /// Ends the current hop, whose transfer is done with `result`: follows a redirect, or says how
  /// the exchange ended.
  /// - Returns: nil when the next hop runs, else the exchange's outcome.
  func finishHop(_ result: ccurl_outcome, message: String, in multi: OpaquePointer) -> HTTPOutcome? {
    dropTransfer()
    // A redirect whose body ended, or was cut at its limit, is followed.
    if let next, result == CCURL_DONE || (result == CCURL_STOPPED && redirectBodyCut) {
      redirects += 1
      guard redirects <= Self.maximumRedirects else {
        return .failed(
          ConnectionError(
            kind: .tooManyRedirects,
            message:
              "too many HTTP redirects (more than \(Self.maximumRedirects) in a row, the last to \(next.url.redactedForLog))"
          ),
          head: nil)
      }
      (url, fields) = next
      return startHop(in: multi)
    }
    let received = headDelivered ? head : nil
    switch result {
    case CCURL_DONE:
      return received.map { .complete($0) }
        ?? .failed(ConnectionError(kind: .badResponse, message: "the server sent no answer"), head: nil)
    case CCURL_STOPPED where stoppedByReceiver: return .stopped
    case CCURL_STOPPED where headTooLarge:
      return .failed(
        ConnectionError(kind: .badResponse, message: "the answer's header is over \(Self.maximumHeadBytes >> 10) KiB"),
        head: nil)
    default:
      return .failed(ConnectionError(kind: Self.kind(of: result), message: redacted(message)), head: received)
    }
  }

  /// Ends the current hop early: cancelled, or for `reason` (silent, too slow, past the deadline).
  /// - Returns: The exchange's outcome.
  func abandonHop(_ reason: ConnectionError?) -> HTTPOutcome {
    dropTransfer()
    guard !isCancelled, let reason else { return .cancelled }
    return .failed(reason, head: headDelivered ? head : nil)
  }

  private func dropTransfer() {
    if let transfer { ccurl_transfer_free(transfer) }
    transfer = nil
  }

  // MARK: libcurl's callbacks (on the loop's thread, inside ccurl_multi_perform)

  /// One header line, CRLF included.
  fileprivate func headerLine(_ line: UnsafeRawBufferPointer) -> Bool {
    pace?.arrived(line.count, at: .now)
    // Trailers after a delivered body, and the rest of a redirect's head, are not the answer's.
    if headDelivered || next != nil { return true }
    headBytes += line.count
    guard headBytes <= Self.maximumHeadBytes else {
      headTooLarge = true
      return false
    }
    if line.starts(with: "HTTP/".utf8) {
      head = HTTPResponseHead(status: 0, fields: [])
      return true
    }
    guard line.contains(where: { $0 != 13 && $0 != 10 }) else { return endOfHead() }
    head.append(line: line)
    return true
  }

  /// The blank line after the fields: an interim answer (1xx), a redirect to follow, or the answer.
  private func endOfHead() -> Bool {
    let status = transfer.map { Int(ccurl_transfer_status($0)) } ?? 0
    if status < 200 {
      (head, headBytes) = (HTTPResponseHead(status: 0, fields: []), 0)
      return true
    }
    head.status = status
    head.redirectTarget = head.value("Location").flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
    if [301, 302, 303, 307, 308].contains(status), let target = head.redirectTarget,
      let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let fields = request.redirects.fields(target)
    {
      next = (target, fields)
      return true
    }
    headDelivered = true
    guard receiver.receive(head: head) else {
      stoppedByReceiver = true
      return false
    }
    return true
  }

  /// A piece of the decoded body.
  fileprivate func bodyBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
    pace?.arrived(bytes.count, at: .now)
    if next != nil {  // a redirect's body is not the answer: read a little of it, then drop the hop
      redirectBodyBytes += bytes.count
      redirectBodyCut = redirectBodyBytes > Self.maximumRedirectBodyBytes
      return !redirectBodyCut
    }
    guard headDelivered else { return true }
    guard receiver.receive(body: bytes) else {
      stoppedByReceiver = true
      return false
    }
    return true
  }

  /// libcurl's message without the current URL's query or password, which may be signatures or
  /// credentials.
  private func redacted(_ message: String) -> String {
    var text = message
    for secret in [url.query, url.password, url.user].compactMap({ $0 }) where secret.count >= 3 {
      text = text.replacing(secret, with: "…")
    }
    return text
  }

  private static func kind(of result: ccurl_outcome) -> ConnectionError.Kind {
    switch result {
    case CCURL_CANNOT_RESOLVE: .cannotFindHost
    case CCURL_CANNOT_CONNECT: .cannotConnect
    case CCURL_CONNECTION_LOST: .connectionLost
    case CCURL_TLS: .secureConnectionFailed
    case CCURL_TIMED_OUT: .timedOut
    case CCURL_BAD_URL: .invalidRequest
    case CCURL_BAD_CONTENT: .badResponse
    default: .other
    }
  }
}

/// libcurl's header callback (``HTTPExchange`` is the context).
private let receiveHeaderLine: ccurl_bytes_fn = { context, bytes, count in
  guard let context else { return 0 }
  let exchange = Unmanaged<HTTPExchange>.fromOpaque(context).takeUnretainedValue()
  return exchange.headerLine(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count)) ? 1 : 0
}

/// libcurl's write callback (``HTTPExchange`` is the context).
private let receiveBodyBytes: ccurl_bytes_fn = { context, bytes, count in
  guard let context else { return 0 }
  let exchange = Unmanaged<HTTPExchange>.fromOpaque(context).takeUnretainedValue()
  return exchange.bodyBytes(UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : count)) ? 1 : 0
}

extension Double {
  /// At most three decimals, without trailing zeros: `30`, `0.5`, `0.001`.
  var formatted3: String {
    let thousandths = Int((self * 1000).rounded())
    let whole = thousandths / 1000
    var fraction = String(thousandths % 1000)
    guard fraction != "0" else { return String(whole) }
    fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
    while fraction.hasSuffix("0") { fraction.removeLast() }
    return "\(whole).\(fraction)"
  }
}
