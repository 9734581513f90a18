import FoundationEssentials

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
    var text = serverURL.absoluteString
    while text.hasSuffix("/") { text.removeLast() }
    text += "/" + segments.map(Self.percentEncoded).joined(separator: "/")
    if !query.isEmpty {
      text +=
        "?" + query.map { Self.percentEncoded($0.name) + "=" + Self.percentEncoded($0.value) }.joined(separator: "&")
    }
    guard let url = URL(string: text) else { preconditionFailure("unencodable endpoint \(segments)") }
    return url
  }

  /// `text` percent-encoded as one path segment or query item: every UTF-8 byte but RFC 3986's
  /// unreserved characters becomes `%XX`.
  static func percentEncoded(_ text: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        bytes.append(byte)
      default: bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Headers for REST requests to ``serverURL``'s own origin: the application id and every
  /// credential that is set. Never send them anywhere else.
  public var restHeaders: [String: String] {
    var headers = fileHeaders
    headers["X-Parse-REST-API-Key"] = restAPIKey
    headers["X-Parse-Master-Key"] = masterKey
    return headers
  }

  /// Headers for file downloads: the application id and the session token, never the keys.
  public var fileHeaders: [String: String] {
    var headers = ["X-Parse-Application-Id": applicationID]
    headers["X-Parse-Session-Token"] = sessionToken
    return headers
  }
}
