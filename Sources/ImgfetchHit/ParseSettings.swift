import FoundationEssentials
import ImgfetchCLI
import ParseEssentials

/// The Parse settings of a run, from the options first and then the environment, checked before
/// any request: the one home of these rules for both executables (imgfetch-fetch's fetch settings
/// and the warm hit `imgfetch` serves). Secrets never appear in the messages.
package struct ParseSettings: Sendable {
  /// The server's URL with its mount.
  package var serverURL: URL
  /// The application id.
  package var applicationID: String
  /// The REST API key, the master key and a user's session token, when set.
  package var restAPIKey, masterKey, sessionToken: String?

  private typealias Key = ParseEnvironment

  /// Reads the settings.
  /// - Parameters:
  ///   - options: The command line's Parse options.
  ///   - environment: Reads one environment variable.
  /// - Throws: ``UsageError`` naming what is missing or malformed.
  package init(_ options: ParseOptions, environment: (String) -> String?) throws(UsageError) {
    guard let server = options.server ?? environment(Key.serverURL) else {
      throw UsageError("Parse sources need --server URL (or PARSE_SERVER_URL)")
    }
    guard let url = URL(string: server), let scheme = url.scheme, scheme == "http" || scheme == "https",
      url.host != nil
    else { throw UsageError("--server must be an http(s) URL (got \(server))") }
    guard let appID = options.appID ?? environment(Key.applicationID) else {
      throw UsageError("Parse sources need --app-id ID (or PARSE_APPLICATION_ID)")
    }
    serverURL = url
    applicationID = appID
    restAPIKey = options.restKey ?? environment(Key.restAPIKey)
    masterKey = options.masterKey ?? environment(Key.masterKey)
    sessionToken = options.sessionToken ?? environment(Key.sessionToken)
  }
}
