import Foundation
import ImageCodecs
import ImageFetch
import ParseFetch
import ParseFixtureSupport
import Testing

/// Parse credentials go only to the Parse server's own origin (scheme, host, port): never to
/// a file host named by the file URL, and never across a redirect that leaves the origin.
@Suite(.timeLimit(.minutes(10))) struct CredentialScopeTests {
  let name = "0123456789abcdef0123456789abcdef_landscape.jpg"
  let credentialHeaders = ["x-parse-application-id", "x-parse-session-token", "x-parse-rest-api-key"]

  /// The Parse server (with `object`) and a second server on another port holding the file.
  func servers(fileURL: (ParseFixture) -> URL?) async throws -> (parse: ParseFixture, other: ParseFixture) {
    let other = try await ParseFixture(files: [name: "Landscape_1.jpg"])
    var file = ParseFixture.file(name)
    file["url"] = fileURL(other)?.absoluteString
    let parse = try await ParseFixture(
      files: [name: "Landscape_1.jpg"],
      seed: ["classes": ["Photo": [ParseFixture.photo("Ed1nuqPvcm", file)]]])
    return (parse, other)
  }

  func fetch(from parse: ParseFixture) async throws -> Image {
    let fetcher = try ImageFetcher(
      configuration: parse.configuration(sessionToken: ParseFixture.sessionToken),
      cache: try DiskCache(directory: try TestFiles.scratchDirectory().path))
    return try await fetcher.image(
      of: ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm"), column: "MainImage")
  }

  var route: String { "files/\(ParseFixture.appID)/\(name)" }

  @Test func aFileURLOnAnotherOriginGetsNoCredentials() async throws {
    let (parse, other) = try await servers { $0.fileURL(name) }
    let image = try await fetch(from: parse)
    #expect(image.width == 1800)
    #expect(try await other.requests(route) == 1)
    #expect(try await parse.requests(route) == 0)
    let seen = try await other.lastHeaders(route)
    for header in credentialHeaders { #expect(seen[header] == nil, "\(header) reached the file host") }
  }

  @Test func aRedirectToAnotherOriginDropsTheCredentials() async throws {
    let (parse, other) = try await servers { _ in nil }
    try await parse.inject([["target": route, "kind": "redirect", "to": other.fileURL(name).absoluteString]])
    let image = try await fetch(from: parse)
    #expect(image.width == 1800)
    let toParse = try await parse.lastHeaders(route)
    #expect(toParse["x-parse-session-token"] == ParseFixture.sessionToken, "the Parse origin keeps them")
    #expect(toParse["x-parse-application-id"] == ParseFixture.appID)
    #expect(try await other.requests(route) == 1)
    let seen = try await other.lastHeaders(route)
    for header in credentialHeaders { #expect(seen[header] == nil, "\(header) followed the redirect") }
  }

  @Test func aRedirectBackToTheParseOriginCarriesThemAgain() async throws {
    let (parse, other) = try await servers { $0.fileURL(name) }
    try await other.inject([["target": route, "kind": "redirect", "to": parse.fileURL(name).absoluteString]])
    #expect(try await fetch(from: parse).width == 1800)
    for header in credentialHeaders { #expect(try await other.lastHeaders(route)[header] == nil) }
    #expect(try await parse.lastHeaders(route)["x-parse-session-token"] == ParseFixture.sessionToken)
  }
}
