import Foundation
import ParseEssentials

/// Where a Parse Server lives and the credentials to talk to it.
///
/// ```swift
/// let config = ParseConfiguration(
///   serverURL: URL(string: "https://example.com/parse")!, applicationID: "myAppId")
/// ```
///
/// The server URL may carry any mount prefix (`/parse`, `/1`, none); paths are joined to it
/// without doubling or dropping slashes. Keys and the session token are never printed:
/// `description`, `debugDescription` and `dump` show `<redacted>` in their place.
public struct ParseConfiguration: Sendable, Equatable {
  /// The server's base URL including its mount prefix, such as `https://example.com/parse`.
  public var serverURL: URL
  /// The application id sent as `X-Parse-Application-Id`.
  public var applicationID: String
  /// The REST API key sent as `X-Parse-REST-API-Key`, when the server requires one.
  public var restAPIKey: String?
  /// The master key sent as `X-Parse-Master-Key`; it bypasses ACLs. Keep it on servers.
  public var masterKey: String?
  /// A user's session token sent as `X-Parse-Session-Token`, on REST and file requests.
  public var sessionToken: String?

  /// Creates a configuration from values known in code.
  /// - Parameters:
  ///   - serverURL: The base URL including the mount prefix.
  ///   - applicationID: The application id.
  ///   - restAPIKey: The REST API key, if the server checks one.
  ///   - masterKey: The master key, if the caller may bypass ACLs.
  ///   - sessionToken: A user's session token, to act as that user.
  public init(
    serverURL: URL, applicationID: String, restAPIKey: String? = nil,
    masterKey: String? = nil, sessionToken: String? = nil
  ) {
    self.serverURL = serverURL
    self.applicationID = applicationID
    self.restAPIKey = restAPIKey
    self.masterKey = masterKey
    self.sessionToken = sessionToken
  }

  /// Joins path segments and a query to the server URL.
  /// - Parameters:
  ///   - segments: Unencoded path segments such as `["classes", "Photo", "Ed1nuqPvcm"]`.
  ///   - query: Unencoded query items, in order.
  /// - Returns: The endpoint's URL, each segment and query item percent-encoded.
  public func endpoint(_ segments: [String], query: [(name: String, value: String)] = []) -> URL {
    let text = ParseREST.endpoint(server: serverURL.absoluteString, segments, query: query)
    guard let url = URL(string: text) else {
      preconditionFailure("unencodable endpoint \(segments)")
    }
    return url
  }

  /// Headers for REST requests to ``serverURL``'s own origin: the application id and every
  /// credential that is set. Never send them anywhere else.
  public var restHeaders: [String: String] {
    ParseREST.restHeaders(
      applicationID: applicationID, restAPIKey: restAPIKey, masterKey: masterKey, sessionToken: sessionToken)
  }

  /// Headers for file downloads: the application id and the session token, never the keys.
  public var fileHeaders: [String: String] {
    ParseREST.fileHeaders(applicationID: applicationID, sessionToken: sessionToken)
  }
}
