import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

/// The one HTTP client (libcurl behind `HTTPExchange`), through the REST client and the downloader,
/// against the fixture Parse Server: what it refuses to send, which redirects it will not follow,
/// its idle timeout below a second, and how a connection's failure is sorted.
@Suite(.timeLimit(.minutes(10))) struct HTTPClientTests {
  let name = "0123456789abcdef0123456789abcdef_landscape.jpg"
  let photo = ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm")
  var fileRoute: String { "files/\(ParseFixture.appID)/\(name)" }

  func server() async throws -> ParseFixture {
    try await ParseFixture(
      files: [name: "Landscape_1.jpg"],
      seed: ["classes": ["Photo": [ParseFixture.photo("Ed1nuqPvcm", ParseFixture.file(name))]]])
  }

  /// A header value with a line break would smuggle a header of its own into the request: refused,
  /// and nothing reaches the server.
  @Test func aHeaderValueWithALineBreakIsRefusedBeforeAnyRequest() async throws {
    let fixture = try await server()
    let client = ParseClient(
      configuration: fixture.configuration(sessionToken: "r:abc\r\nX-Parse-Master-Key: guess"), retryPolicy: .none)
    let error = await #expect(throws: ParseError.self) { try await client.file(of: photo, column: "MainImage") }
    guard case .connection(_, let failure)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failure.kind == .invalidRequest && !failure.isTransient)
    #expect(try await fixture.requests("classes/Photo/Ed1nuqPvcm") == 0)
  }

  /// Only http and https redirects are followed: one to `file:` is the answer, an HTTP 302.
  @Test func aRedirectToAnotherSchemeIsNotFollowed() async throws {
    let fixture = try await server()
    try await fixture.inject([["target": fileRoute, "kind": "redirect", "to": "file:///etc/passwd"]])
    let part = try TestFiles.scratchDirectory().appendingPathComponent("x.part").path
    let error = await #expect(throws: DownloadError.self) {
      try await Downloader(options: .init(retryPolicy: .none)).download(from: fixture.fileURL(name), to: part)
    }
    guard case .httpStatus(_, 302, _, _)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
  }

  /// The idle timeout is the client's own, to the millisecond (libcurl's low-speed limit counts whole
  /// seconds): a REST answer that waits ten minutes fails as a timeout of 0.3 s, long before it.
  /// (The bound is loose: on a loaded machine the test's task may wait tens of seconds for a
  /// cooperative thread after the timeout fired; the error's kind and message say which clock did.)
  @Test func anIdleTimeoutBelowASecondIsKept() async throws {
    let fixture = try await server()
    try await fixture.inject([["target": "classes/Photo/Ed1nuqPvcm", "kind": "delay", "seconds": 600]])
    let client = ParseClient(configuration: fixture.configuration(), retryPolicy: .none, timeout: 0.3)
    let start = ContinuousClock.now
    let error = await #expect(throws: ParseError.self) { try await client.file(of: photo, column: "MainImage") }
    #expect(ContinuousClock.now - start < .seconds(300), "before the answer, however loaded the machine")
    guard case .connection(_, let failure)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failure.kind == .timedOut && failure.isTransient)
    #expect(failure.message == "nothing arrived for 0.3 s")
  }

  /// TLS to a server that does not speak it (here one that answers the ClientHello with plain HTTP)
  /// is a secure-connection failure, which retrying cannot mend: one connection, one line.
  @Test func httpsToAPlainServerIsASecureConnectionFailureNotRetried() async throws {
    let scratch = try TestFiles.scratchDirectory()
    let connections = scratch.appendingPathComponent("connections").path
    let plain = try await ServerProcess.start(["python3", "-c", Self.plainAnswerServer, connections])
    defer { plain.stop() }
    let https = URL(string: "https://127.0.0.1:\(plain.port)/parse/files/app/photo.jpg")!
    let error = await #expect(throws: DownloadError.self) {
      try await Downloader(options: .init(retryPolicy: RetryPolicy(maxAttempts: 4, initialDelay: .milliseconds(10))))
        .download(from: https, to: scratch.appendingPathComponent("x.part").path)
    }
    guard case .connection(_, let failure)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failure.kind == .secureConnectionFailed && !failure.isTransient, "\(failure)")
    #expect(error?.description.split(separator: "\n").count == 1)
    let count = try String(contentsOfFile: connections, encoding: .utf8).split(separator: "\n").count
    #expect(count == 1, "not retried")
  }

  /// Prints `PORT <n>`, then answers every connection's first bytes (a TLS ClientHello) with a plain
  /// HTTP 400, appending a line per connection that sent any to the file named by its argument (the
  /// fixture's readiness probe connects and sends nothing, and is not counted).
  static let plainAnswerServer = """
    import socket, sys
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    print("PORT %d" % server.getsockname()[1], flush=True)
    while True:
        connection, _ = server.accept()
        try:
            hello = connection.recv(4096)
            if hello:
                with open(sys.argv[1], "a") as log:
                    log.write("connection\\n")
                connection.sendall(b"HTTP/1.1 400 Bad Request\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n")
        except OSError:
            pass
        connection.close()
    """
}

/// `Retry-After` as an HTTP date, in the three forms RFC 9110 has a recipient accept.
@Suite(.timeLimit(.minutes(30))) struct HTTPDateTests {
  @Test(
    arguments: [
      ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777), ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777),
      ("Sun Nov  6 08:49:37 1994", 784_111_777), ("Thu, 01 Jan 1970 00:00:00 GMT", 0),
      ("Wed, 29 Feb 2096 23:59:60 GMT", 3_981_398_400),
    ])
  func readsEachForm(text: String, seconds: Int) {
    #expect(HTTPDate.secondsSince1970(text) == seconds)
  }

  @Test(arguments: [
    "", "tomorrow", "Sun, 06 Nov 1994 08:49:37 CET", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
  ])
  func refusesAnythingElse(text: String) {
    #expect(HTTPDate.secondsSince1970(text) == nil)
  }
}

/// The `where` of a walk: the caller's JSON is kept as written (every digit of its numbers), the
/// objectId condition added beside it.
@Suite(.timeLimit(.minutes(30))) struct QueryConstraintTests {
  @Test func keepsTheCallersJSONAndAddsTheObjectIdCondition() throws {
    let user = #"{"size":{"$gt":12345678901234567890}}"#
    #expect(
      try QueryConstraint.merged(user, after: "abc")
        == #"{"size":{"$gt":12345678901234567890},"objectId":{"$gt":"abc"}}"#)
    #expect(try QueryConstraint.merged(user, after: nil) == user)
    #expect(
      try QueryConstraint.merged(nil, range: ObjectIDRange(lowerBound: "a", upperBound: "b\"c"), after: nil)
        == #"{"objectId":{"$gte":"a","$lt":"b\"c"}}"#)
  }

  @Test func putsTheCallersOwnObjectIdConditionBesideItsOwnInAnAnd() throws {
    let user = #" {"objectId":{"$in":["x"]}} "#
    #expect(
      try QueryConstraint.merged(user, after: "x")
        == #"{"$and":[{"objectId":{"$in":["x"]}},{"objectId":{"$gt":"x"}}]}"#)
    #expect(try QueryConstraint.merged("{ }", after: "x") == #"{"objectId":{"$gt":"x"}}"#)
    #expect(throws: ParseError.self) { try QueryConstraint.merged("[1]", after: nil) }
  }
}
