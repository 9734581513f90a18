import FoundationEssentials
import ParseFetch

extension ParseOptions {
  /// The run's Parse configuration: each setting from its option, else from its environment variable
  /// (``ParseFetch/ParseConfiguration/EnvironmentKey``), checked before any request. Keys and tokens
  /// never appear in the messages.
  /// - Parameter environment: Reads one environment variable.
  /// - Returns: The configuration.
  /// - Throws: ``UsageError`` naming what is missing or malformed.
  public func configuration(environment: (String) -> String?) throws(UsageError) -> ParseConfiguration {
    typealias Key = ParseConfiguration.EnvironmentKey
    func setting(_ option: String?, _ variable: String) -> String? {
      option ?? environment(variable).flatMap { $0.isEmpty ? nil : $0 }
    }
    guard let server = setting(self.server, Key.serverURL) else {
      throw UsageError("Parse sources need --server URL (or \(Key.serverURL))")
    }
    guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
      url.host != nil
    else { throw UsageError("--server must be an http(s) URL (got \(server))") }
    guard let applicationID = setting(appID, Key.applicationID) else {
      throw UsageError("Parse sources need --app-id ID (or \(Key.applicationID))")
    }
    return ParseConfiguration(
      serverURL: url, applicationID: applicationID, restAPIKey: setting(restKey, Key.restAPIKey),
      masterKey: setting(masterKey, Key.masterKey), sessionToken: setting(sessionToken, Key.sessionToken))
  }
}
