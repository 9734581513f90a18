import Foundation
import Testing

@testable import ParseFetch

@Suite(.timeLimit(.minutes(30))) struct ParseConfigurationTests {
  static let environment = [
    "PARSE_SERVER_URL": "https://example.com/parse", "PARSE_APPLICATION_ID": "app",
    "PARSE_REST_API_KEY": "rest-SECRET", "PARSE_MASTER_KEY": "master-SECRET",
    "PARSE_SESSION_TOKEN": "r:token-SECRET",
  ]

  @Test(arguments: [
    ("https://h/parse", "https://h/parse/classes/Photo/a1"),
    ("https://h/parse/", "https://h/parse/classes/Photo/a1"),
    ("https://h/1", "https://h/1/classes/Photo/a1"),
    ("https://h", "https://h/classes/Photo/a1"),
    ("https://h/", "https://h/classes/Photo/a1"),
    ("http://h:8080/a/b//", "http://h:8080/a/b/classes/Photo/a1"),
  ])
  func joinsPathsToAnyMount(base: String, expected: String) {
    let config = ParseConfiguration(serverURL: URL(string: base)!, applicationID: "a")
    #expect(config.endpoint(["classes", "Photo", "a1"]).absoluteString == expected)
  }

  @Test func encodesQueryValuesStrictly() {
    let config = ParseConfiguration(serverURL: URL(string: "https://h/parse")!, applicationID: "a")
    let url = config.endpoint(["classes", "Photo"], query: [("where", #"{"a":"b+c d&e"}"#)])
    #expect(url.query == "where=%7B%22a%22%3A%22b%2Bc%20d%26e%22%7D")
  }

  @Test func readsTheEnvironment() throws {
    let config = try ParseConfiguration(environment: Self.environment)
    #expect(config.serverURL.absoluteString == "https://example.com/parse")
    #expect(config.applicationID == "app")
    #expect(config.restAPIKey == "rest-SECRET")
    #expect(config.masterKey == "master-SECRET")
    #expect(config.sessionToken == "r:token-SECRET")
  }

  @Test func treatsEmptyOptionalVariablesAsUnset() throws {
    var environment = Self.environment
    environment["PARSE_MASTER_KEY"] = ""
    #expect(try ParseConfiguration(environment: environment).masterKey == nil)
  }

  @Test func namesTheMissingVariable() {
    var environment = Self.environment
    environment["PARSE_APPLICATION_ID"] = nil
    #expect(throws: ParseConfigurationError.missingVariable("PARSE_APPLICATION_ID")) {
      try ParseConfiguration(environment: environment)
    }
  }

  @Test func rejectsAServerURLWithoutScheme() {
    var environment = Self.environment
    environment["PARSE_SERVER_URL"] = "example.com/parse"
    #expect(throws: ParseConfigurationError.invalidServerURL(variable: "PARSE_SERVER_URL")) {
      try ParseConfiguration(environment: environment)
    }
  }

  @Test func neverPrintsKeysOrTokens() throws {
    var environment = Self.environment
    environment["PARSE_SERVER_URL"] = "https://user:pw-SECRET@example.com/parse"
    let config = try ParseConfiguration(environment: environment)
    var dumped = ""
    dump(config, to: &dumped)
    for text in [
      config.description, config.debugDescription, "\(config)", String(reflecting: config), dumped,
    ] {
      #expect(!text.contains("SECRET"), "\(text)")
    }
    #expect(config.description.contains("<redacted>"))
  }

  @Test func sendsOnlyTheAppIdAndSessionTokenWithFiles() throws {
    let config = try ParseConfiguration(environment: Self.environment)
    #expect(
      config.fileHeaders == [
        "X-Parse-Application-Id": "app", "X-Parse-Session-Token": "r:token-SECRET",
      ])
    #expect(config.restHeaders["X-Parse-Master-Key"] == "master-SECRET")
  }
}
