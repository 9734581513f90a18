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
  /// seconds): a REST answer that waits five seconds fails after about a third of one.
  @Test func anIdleTimeoutBelowASecondIsKept() async throws {
    let fixture = try await server()
    try await fixture.inject([["target": "classes/Photo/Ed1nuqPvcm", "kind": "delay", "seconds": 5]])
    let client = ParseClient(configuration: fixture.configuration(), retryPolicy: .none, timeout: 0.3)
    let start = ContinuousClock.now
    let error = await #expect(throws: ParseError.self) { try await client.file(of: photo, column: "MainImage") }
    #expect(ContinuousClock.now - start < .seconds(4), "well before the answer")
    guard case .connection(_, let failure)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failure.kind == .timedOut && failure.isTransient)
    #expect(failure.message == "nothing arrived for 0.3 s")
  }

  /// TLS to a server that does not speak it is a secure-connection failure, which retrying cannot
  /// mend: one attempt, one line.
  @Test func httpsToAPlainServerIsASecureConnectionFailureNotRetried() async throws {
    let fixture = try await server()
    let https = URL(string: fixture.fileURL(name).absoluteString.replacingOccurrences(of: "http://", with: "https://"))!
    let part = try TestFiles.scratchDirectory().appendingPathComponent("x.part").path
    let start = ContinuousClock.now
    let error = await #expect(throws: DownloadError.self) {
      try await Downloader(options: .init(retryPolicy: RetryPolicy(maxAttempts: 4, initialDelay: .seconds(2))))
        .download(from: https, to: part)
    }
    #expect(ContinuousClock.now - start < .seconds(2), "not retried")
    guard case .connection(_, let failure)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failure.kind == .secureConnectionFailed && !failure.isTransient)
    #expect(error?.description.split(separator: "\n").count == 1)
  }

  /// An object's JSON and then its file, from one server in one process: the same connection.
  @Test func aServerIsAskedOverTheConnectionItAlreadyHas() async throws {
    let fixture = try await server()
    let configuration = fixture.configuration()
    let file = try await ParseClient(configuration: configuration).file(of: photo, column: "MainImage")
    let part = try TestFiles.scratchDirectory().appendingPathComponent("x.part").path
    try await Downloader().download(
      from: file.url, to: part, headers: configuration.fileHeaders, headersOrigin: configuration.serverURL)
    let object = try await fixture.lastHeaders("classes/Photo/Ed1nuqPvcm")
    let download = try await fixture.lastHeaders(fileRoute)
    #expect(object["x-fixture-connection"] != nil && object["x-fixture-connection"] == download["x-fixture-connection"])
  }
}

/// `Retry-After` as an HTTP date, in the three forms RFC 9110 has a recipient accept.
@Suite struct HTTPDateTests {
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
@Suite struct QueryConstraintTests {
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
