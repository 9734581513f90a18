import FoundationEssentials

extension ParseConfiguration {
  /// The environment variable names read by ``init(environment:)``.
  public enum EnvironmentKey {
    /// The server URL with its mount prefix.
    public static let serverURL = "PARSE_SERVER_URL"
    /// The application id.
    public static let applicationID = "PARSE_APPLICATION_ID"
    /// The REST API key.
    public static let restAPIKey = "PARSE_REST_API_KEY"
    /// The master key.
    public static let masterKey = "PARSE_MASTER_KEY"
    /// A user's session token.
    public static let sessionToken = "PARSE_SESSION_TOKEN"
  }

  /// Reads the configuration from environment variables.
  ///
  /// `PARSE_SERVER_URL` and `PARSE_APPLICATION_ID` are required; the keys and the session token
  /// are optional, and empty values count as unset.
  /// - Parameter environment: The variables to read; the process environment by default.
  /// - Throws: `ParseConfigurationError` naming the variable that is missing or malformed.
  public init(environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(ParseConfigurationError)
  {
    func value(_ name: String) -> String? {
      guard let text = environment[name]?.trimmingASCIIWhitespace(), !text.isEmpty
      else { return nil }
      return text
    }
    guard let urlText = value(EnvironmentKey.serverURL) else {
      throw .missingVariable(EnvironmentKey.serverURL)
    }
    guard let url = URL(string: urlText), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", url.host != nil
    else { throw .invalidServerURL(variable: EnvironmentKey.serverURL) }
    guard let applicationID = value(EnvironmentKey.applicationID) else {
      throw .missingVariable(EnvironmentKey.applicationID)
    }
    self.init(
      serverURL: url, applicationID: applicationID,
      restAPIKey: value(EnvironmentKey.restAPIKey), masterKey: value(EnvironmentKey.masterKey),
      sessionToken: value(EnvironmentKey.sessionToken))
  }
}

/// Why a ``ParseConfiguration`` could not be read; never carries a key or token.
public enum ParseConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A required environment variable is unset or empty.
  case missingVariable(String)
  /// The server URL is not an absolute http(s) URL; the value is not repeated.
  case invalidServerURL(variable: String)

  /// One sentence saying what to set.
  public var description: String {
    switch self {
    case .missingVariable(let name):
      "\(name) is not set: set it (or pass the value in code) to reach the Parse Server"
    case .invalidServerURL(let name):
      "\(name) is not an absolute http(s) URL: set it to the server with its mount, "
        + "such as https://example.com/parse"
    }
  }
}
