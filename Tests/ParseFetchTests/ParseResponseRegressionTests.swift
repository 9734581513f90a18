import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

/// Inputs the FuzzParseJSON target found (`Fixtures/regressions/FuzzParseJSON`), and the numbers
/// beyond `Int` that they showed could trap: every answer must become a `ParseFile` or a
/// one-line `ParseError`.
@Suite(.timeLimit(.minutes(10))) struct ParseResponseRegressionTests {
  let photo = ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm")

  /// Reads a FuzzParseJSON input as the target does: status selector, Retry-After length and
  /// value, body.
  func interpret(_ bytes: [UInt8]) -> Result<ParseFile, ParseError> {
    let statuses = [200, 201, 204, 301, 400, 401, 403, 404, 429, 500, 502, 503]
    let headerLength = min(Int(bytes[1]) % 33, bytes.count - 2)
    var headers = ["Content-Type": "application/json; charset=utf-8"]
    if headerLength > 0 {
      headers["Retry-After"] = String(decoding: bytes[2..<2 + headerLength], as: UTF8.self)
    }
    let body = Data(bytes[(2 + headerLength)...])
    return Result { () throws(ParseError) in
      try ParseFile(
        response: statuses[Int(bytes[0]) % statuses.count], headers: headers, body: body, of: photo,
        column: "MainImage")
    }
  }

  @Test func everyFuzzRegressionInputIsAnOrdinaryError() throws {
    let directory = TestFiles.root.appendingPathComponent("Fixtures/regressions/FuzzParseJSON")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(!names.isEmpty)
    for name in names {
      let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
      guard case .failure(let error) = interpret(bytes) else {
        Issue.record("\(name) was read as a file")
        continue
      }
      #expect(error.description.split(separator: "\n").count == 1, "\(name)")
    }
  }

  /// FuzzParseJSON's `retry-after-non-ascii-date`: Foundation's DateFormatter trapped ("Incorrect
  /// range CFRange") on this Retry-After value; a non-ASCII value is unreadable, not a crash.
  @Test func aNonASCIIRetryAfterIsUnreadable() throws {
    let value = String(
      decoding: [UInt8]("We 2".utf8) + [0xDC, 0xB0, 0x9C, 0x8B] + Array(" 2.7:2:0 GMT".utf8), as: UTF8.self)
    #expect(RetryPolicy.retryAfter(value) == nil)
    #expect {
      try ParseFile(response: 429, headers: ["Retry-After": value], body: Data(), of: photo, column: "MainImage")
    } throws: { error in
      guard case ParseError.rateLimited(retryAfter: nil, message: _) = error else { return false }
      return true
    }
    let date = try #require(RetryPolicy.retryAfter("Wed, 21 Oct 2099 07:28:00 GMT"))
    #expect(date > .seconds(86_400))
  }

  @Test func anErrorCodeBeyondIntIsAServerErrorWithoutACode() {
    let body = Data(#"{"code":10122222222222222222,"error":"Object not found."}"#.utf8)
    #expect {
      try ParseFile(response: 404, headers: [:], body: body, of: photo, column: "MainImage")
    } throws: { error in
      guard case ParseError.server(status: 404, code: 0, message: "Object not found.") = error else { return false }
      return true
    }
  }

  @Test func aFileColumnIsReadFromASuccessfulAnswer() throws {
    let body = Data(
      #"{"MainImage":{"__type":"File","name":"a_photo.jpg","url":"http://127.0.0.1:1/parse/files/app/a_photo.jpg"}}"#
        .utf8)
    let file = try ParseFile(response: 200, headers: [:], body: body, of: photo, column: "MainImage")
    #expect(file.name == "a_photo.jpg")
    #expect(file.url.absoluteString == "http://127.0.0.1:1/parse/files/app/a_photo.jpg")
  }

  @Test func aCountBeyondIntIsRefused() async throws {
    let fixture = try await ParseFixture(seed: [
      "classes": ["Photo": [ParseFixture.photo("aaaaaaaaaa", nil)]],
      "faults": [
        [
          "target": "classes/Photo", "kind": "status", "status": 200, "body": ["results": [], "count": 1e30],
          "times": -1,
        ]
      ],
    ])
    let client = ParseClient(configuration: fixture.configuration(), retryPolicy: .none)
    await #expect {
      _ = try await client.count(in: "Photo")
    } throws: { error in
      guard case ParseError.unexpectedResponse(status: 200, _, excerpt: "no count") = error else { return false }
      return true
    }
  }
}
