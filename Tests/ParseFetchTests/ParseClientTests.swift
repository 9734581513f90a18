import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

@Suite(.timeLimit(.minutes(10))) struct ParseClientTests {
  let name = "d41d8cd98f00b204e9800998ecf8427e_photo.jpg"
  let photo = ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm")

  func fixture(_ objects: [[String: Any]], seed: [String: Any] = [:]) async throws -> ParseFixture {
    var seed = seed
    seed["classes"] = ["Photo": objects]
    return try await ParseFixture(files: [name: "Landscape_1.jpg"], seed: seed)
  }

  func client(_ fixture: ParseFixture, masterKey: Bool = false, session: String? = nil)
    -> ParseClient
  {
    ParseClient(
      configuration: fixture.configuration(masterKey: masterKey, sessionToken: session),
      retryPolicy: .none)
  }

  @Test func resolvesTheFileColumnWithTheRightHeaders() async throws {
    let fixture = try await fixture([ParseFixture.photo("Ed1nuqPvcm", ParseFixture.file(name))])
    let file = try await client(fixture).file(of: photo, column: "MainImage")
    #expect(file.name == name)
    #expect(file.url == fixture.fileURL(name))
    let headers = try await fixture.lastHeaders("classes/Photo/Ed1nuqPvcm")
    #expect(headers["x-parse-application-id"] == ParseFixture.appID)
    #expect(headers["x-parse-rest-api-key"] == ParseFixture.restKey)
  }

  /// Column values as JSON text (nil: no such key) and what the message says was found.
  @Test(
    arguments: [
      ("null", "found null"), (#""photo.jpg""#, "found a string"),
      ("42", "found a number"),
      (#"{"__type":"Pointer","className":"X","objectId":"y"}"#, "found a Pointer"),
      (#"{"__type":"File","url":"http://h/x"}"#, "found a File without a name"),
    ] as [(String?, String)])
  func namesClassObjectAndColumnWhenNotAFile(json: String?, found: String) async throws {
    let value = try json.map {
      try JSONSerialization.jsonObject(with: Data($0.utf8), options: .fragmentsAllowed)
    }
    let fixture = try await fixture([ParseFixture.photo("Ed1nuqPvcm", value)])
    let error = await #expect(throws: ParseError.self) {
      try await client(fixture).file(of: photo, column: "MainImage")
    }
    #expect(error?.description == "Photo/Ed1nuqPvcm: column MainImage is not a file (\(found))")
  }

  /// An object without the column says the column is missing (the same words as a class walk's).
  @Test func namesAMissingColumn() async throws {
    let fixture = try await fixture([ParseFixture.photo("Ed1nuqPvcm", nil)])
    let error = await #expect(throws: ParseError.self) {
      try await client(fixture).file(of: photo, column: "MainImage")
    }
    #expect(
      error?.description
        == "Photo/Ed1nuqPvcm: column MainImage is missing (the object has no such field; check the column name)")
  }

  @Test func reportsAMissingObjectWithTheServerText() async throws {
    let fixture = try await fixture([])
    let error = await #expect(throws: ParseError.self) {
      try await client(fixture).file(of: photo, column: "MainImage")
    }
    guard case .objectNotFound(let object, let message)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(object == photo && message == "Object not found.")
  }

  @Test func seesAnACLHiddenObjectOnlyWithItsSession() async throws {
    var object = ParseFixture.photo("Ed1nuqPvcm", ParseFixture.file(name))
    object["ACL"] = ["user1": ["read": true]]
    let fixture = try await fixture([object])
    await #expect(throws: ParseError.self) {
      try await client(fixture).file(of: photo, column: "MainImage")
    }
    let file = try await client(fixture, session: ParseFixture.sessionToken).file(
      of: photo, column: "MainImage")
    #expect(file.name == name)
  }

  @Test func matchesAnInvalidSessionOnCode209() async throws {
    let fixture = try await fixture([ParseFixture.photo("Ed1nuqPvcm", ParseFixture.file(name))])
    let error = await #expect(throws: ParseError.self) {
      try await client(fixture, session: "r:expired-SECRET").file(of: photo, column: "MainImage")
    }
    guard case .invalidSessionToken(let message)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(message == "Invalid session token")
    #expect(!(error?.description.contains("SECRET") ?? true))
  }

  @Test func matchesForbiddenOnCode119() async throws {
    let fixture = try await fixture([], seed: ["masterOnlyClasses": ["Photo"]])
    let error = await #expect(throws: ParseError.self) {
      try await client(fixture).file(of: photo, column: "MainImage")
    }
    guard case .forbidden(let message)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(message.contains("Permission denied"))
  }

  @Test func reportsAWrongKeyAsUnauthorized() async throws {
    let fixture = try await fixture([])
    var config = fixture.configuration()
    config.restAPIKey = "wrong-SECRET"
    let error = await #expect(throws: ParseError.self) {
      try await ParseClient(configuration: config, retryPolicy: .none).file(
        of: photo, column: "MainImage")
    }
    guard case .unauthorized? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(!(error?.description.contains("SECRET") ?? true))
  }

  @Test func reportsRateLimitingWithRetryAfter() async throws {
    let fixture = try await fixture(
      [],
      seed: [
        "faults": [
          ["target": "classes/Photo/Ed1nuqPvcm", "kind": "status", "status": 429, "retryAfter": 7]
        ]
      ])
    let error = await #expect(throws: ParseError.self) {
      try await client(fixture).file(of: photo, column: "MainImage")
    }
    guard case .rateLimited(let wait, let message)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(wait == .seconds(7) && message == "Too many requests.")
  }

  @Test func retriesRateLimitingAfterTheServersWait() async throws {
    let fixture = try await fixture(
      [ParseFixture.photo("Ed1nuqPvcm", ParseFixture.file(name))],
      seed: [
        "faults": [
          ["target": "classes/Photo/Ed1nuqPvcm", "kind": "status", "status": 429, "retryAfter": 1]
        ]
      ])
    let client = ParseClient(
      configuration: fixture.configuration(), retryPolicy: RetryPolicy(maxAttempts: 2))
    let start = ContinuousClock.now
    #expect(try await client.file(of: photo, column: "MainImage").name == name)
    #expect(ContinuousClock.now - start >= .seconds(1))
    #expect(try await fixture.requests("classes/Photo/Ed1nuqPvcm") == 2)
  }

  @Test func showsAnInternalErrorsMessage() async throws {
    let fixture = try await fixture(
      [],
      seed: ["faults": [["target": "classes/Photo/Ed1nuqPvcm", "kind": "status", "status": 500]]])
    let error = await #expect(throws: ParseError.self) {
      try await client(fixture).file(of: photo, column: "MainImage")
    }
    #expect(error?.description == "the server failed with HTTP 500, code 1: Internal server error.")
  }

  @Test func reportsAProxyErrorPageAsNotJSON() async throws {
    let fixture = try await fixture([], seed: ["faults": [["target": "*", "kind": "html502"]]])
    let error = await #expect(throws: ParseError.self) {
      try await client(fixture).file(of: photo, column: "MainImage")
    }
    guard case .unexpectedResponse(502, let type, "502 Bad Gateway")? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(type == "text/html")
  }

  @Test func reportsAnUnreachableServer() async throws {
    let config = ParseConfiguration(
      serverURL: URL(string: "http://127.0.0.1:9/parse")!, applicationID: "a")
    let error = await #expect(throws: ParseError.self) {
      try await ParseClient(configuration: config, retryPolicy: .none).file(
        of: photo, column: "MainImage")
    }
    guard case .connection? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
  }
}

@Suite(.timeLimit(.minutes(10))) struct SecretsTests {
  /// Every failure a client can meet, with every credential set: no message may show one.
  @Test func neverAppearInErrorMessages() async throws {
    let fixture = try await ParseFixture(
      seed: [
        "classes": ["Photo": [ParseFixture.photo("a1", "text")]],
        "faults": [
          ["target": "classes/Photo/html", "kind": "html502"],
          ["target": "classes/Photo/crash", "kind": "status", "status": 500],
          ["target": "classes/Photo/busy", "kind": "status", "status": 429, "retryAfter": 3],
        ],
      ])
    var messages: [String] = []
    func record(_ body: () async throws -> Void) async {
      do { try await body() } catch { messages.append("\(error)") }
    }
    let full = fixture.configuration(masterKey: true, sessionToken: ParseFixture.sessionToken)
    var badToken = full
    badToken.sessionToken = "r:stale-SECRET-0000"
    var badKey = fixture.configuration()
    badKey.restAPIKey = "rest-SECRET-wrong"
    for config in [full, badToken, badKey] {
      let client = ParseClient(configuration: config, retryPolicy: .none)
      for id in ["a1", "missing", "html", "crash", "busy"] {
        await record {
          _ = try await client.file(of: ParseObjectReference(className: "Photo", objectID: id), column: "MainImage")
        }
      }
      await record { for try await _ in client.objectFiles(in: "Photo", column: "MainImage", where: "[]") {} }
    }
    let signed = URL(string: "http://user:pw-SECRET@127.0.0.1:9/f.jpg?X-Amz-Signature=SECRET")!
    await record {
      try await Downloader(options: .init(retryPolicy: .none)).download(
        from: signed, to: fixture.directory.appendingPathComponent("x.part").path, headers: full.fileHeaders)
    }
    #expect(messages.count == 19)
    for message in messages { #expect(!message.contains("SECRET"), "\(message)") }
  }
}
