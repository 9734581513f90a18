import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

/// REST requests carry the application id, the REST or master key and the session token, so they
/// may follow a redirect only within the Parse server's own origin; a redirect elsewhere is refused
/// with one line naming both origins, and the other host never sees a request.
@Suite(.timeLimit(.minutes(10))) struct ParseClientRedirectTests {
  let name = "d41d8cd98f00b204e9800998ecf8427e_photo.jpg"
  let photo = ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm")
  let route = "classes/Photo/Ed1nuqPvcm"

  func server() async throws -> ParseFixture {
    try await ParseFixture(
      files: [name: "Landscape_1.jpg"],
      seed: ["classes": ["Photo": [ParseFixture.photo("Ed1nuqPvcm", ParseFixture.file(name))]]])
  }

  func client(_ fixture: ParseFixture) -> ParseClient {
    ParseClient(
      configuration: fixture.configuration(masterKey: true, sessionToken: ParseFixture.sessionToken),
      retryPolicy: .none)
  }

  func objectURL(on fixture: ParseFixture) -> String {
    fixture.baseURL.absoluteString + "/" + route + "?keys=MainImage"
  }

  @Test func aRedirectToAnotherOriginIsRefusedBeforeAnyKeyLeaves() async throws {
    let (parse, other) = (try await server(), try await server())
    try await parse.inject([
      ["target": route, "kind": "redirect", "to": objectURL(on: other), "times": -1]
    ])
    let error = await #expect(throws: ParseError.self) {
      try await client(parse).file(of: photo, column: "MainImage")
    }
    #expect(try await other.requests(route) == 0, "the other host saw the request")
    #expect(
      error?.description
        == "the Parse server at \(parse.baseURL.absoluteString) redirected to another origin "
        + "(http://127.0.0.1:\(other.baseURL.port!)); Parse keys are sent only to their own "
        + "origin: set the server URL to where the server really is")
    for secret in ParseFixture.secrets {
      #expect(error?.description.contains(secret) == false)
    }
  }

  @Test func aRedirectWithinTheOriginKeepsTheCredentials() async throws {
    let parse = try await server()
    try await parse.inject([["target": route, "kind": "redirect", "to": objectURL(on: parse)]])
    let file = try await client(parse).file(of: photo, column: "MainImage")
    #expect(file.name == name)
    #expect(try await parse.requests(route) == 2)
    let headers = try await parse.lastHeaders(route)
    #expect(headers["x-parse-application-id"] == ParseFixture.appID)
    #expect(headers["x-parse-master-key"] == ParseFixture.masterKey)
    #expect(headers["x-parse-session-token"] == ParseFixture.sessionToken)
  }
}
