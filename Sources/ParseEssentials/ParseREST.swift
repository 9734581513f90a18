import FoundationEssentials

/// The shape of Parse REST requests and answers, without Foundation's networking: the one home of
/// the endpoint URLs, the credential headers and the reading of a File column, shared by ParseFetch
/// (``ParseFetch`` wraps them in its public types) and the codec-only executable's warm hit.
package enum ParseREST {
  /// Joins path segments and a query to the server's URL text.
  /// - Parameters:
  ///   - server: The server's URL with its mount, as text.
  ///   - segments: Unencoded path segments such as `["classes", "Photo", "Ed1nuqPvcm"]`.
  ///   - query: Unencoded query items, in order.
  /// - Returns: The endpoint, each segment and query item percent-encoded.
  package static func endpoint(server: String, _ segments: [String], query: [(name: String, value: String)] = [])
    -> String
  {
    var base = server
    while base.hasSuffix("/") { base.removeLast() }
    let path = segments.map(URLEncoding.component).joined(separator: "/")
    var text = base + "/" + path
    if !query.isEmpty {
      text +=
        "?"
        + query.map { URLEncoding.component($0.name) + "=" + URLEncoding.component($0.value) }
        .joined(separator: "&")
    }
    return text
  }

  /// The request for one object's file column (`GET classes/<Class>/<id>?keys=<column>`), so the
  /// server sends that column only.
  /// - Returns: The segments and query for ``endpoint(server:_:query:)``.
  package static func fileColumnRequest(className: String, objectID: String, column: String)
    -> (segments: [String], query: [(name: String, value: String)])
  {
    (["classes", className, objectID], [("keys", column)])
  }

  /// Headers for REST requests to the server's own origin: the application id and every
  /// credential that is set. Never send them anywhere else.
  package static func restHeaders(
    applicationID: String, restAPIKey: String?, masterKey: String?, sessionToken: String?
  ) -> [String: String] {
    var headers = fileHeaders(applicationID: applicationID, sessionToken: sessionToken)
    headers["X-Parse-REST-API-Key"] = restAPIKey
    headers["X-Parse-Master-Key"] = masterKey
    return headers
  }

  /// Headers for file downloads: the application id and the session token, never the keys.
  package static func fileHeaders(applicationID: String, sessionToken: String?) -> [String: String] {
    var headers = ["X-Parse-Application-Id": applicationID]
    headers["X-Parse-Session-Token"] = sessionToken
    return headers
  }
}

/// A File column's value as an answer holds it.
package enum FileColumn: Equatable {
  /// A File with a name and a URL the server gave.
  case file(name: String, url: URL)
  /// The object has no such field.
  case missing
  /// Something else, described for messages (`a string`, `a Pointer`, `a File without a name`).
  case notAFile(found: String)

  /// Reads a column's value.
  /// - Parameter value: The field, or nil when the object has none.
  package init(_ value: ParseJSON?) {
    guard let value else {
      self = .missing
      return
    }
    guard value["__type"]?.string == "File" else {
      self = .notAFile(found: value.kindDescription)
      return
    }
    guard let name = value["name"]?.string, !name.isEmpty else {
      self = .notAFile(found: "a File without a name")
      return
    }
    guard let text = value["url"]?.string, let url = URL(string: text), url.scheme != nil else {
      self = .notAFile(found: "a File without a usable url")
      return
    }
    self = .file(name: name, url: url)
  }
}

/// Percent-encoding that leaves only RFC 3986 unreserved characters as they are: every other
/// UTF-8 byte becomes `%XX` (upper-case hex), as `addingPercentEncoding(withAllowedCharacters:)`
/// does with that set, without building a `CharacterSet` (a measurable share of a warm hit).
package enum URLEncoding {
  /// Whether `byte` is an RFC 3986 unreserved character.
  package static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
      UInt8(ascii: "~"):
      true
    default: false
    }
  }

  /// `text` percent-encoded as one path segment or query item.
  package static func component(_ text: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      if isUnreserved(byte) {
        bytes.append(byte)
      } else {
        bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }
}

/// The environment variables that name a Parse Server and its credentials (ParseFetch's
/// `ParseConfiguration.EnvironmentKey` and the command line read the same ones).
package enum ParseEnvironment {
  /// The server URL with its mount prefix.
  package static let serverURL = "PARSE_SERVER_URL"
  /// The application id.
  package static let applicationID = "PARSE_APPLICATION_ID"
  /// The REST API key.
  package static let restAPIKey = "PARSE_REST_API_KEY"
  /// The master key.
  package static let masterKey = "PARSE_MASTER_KEY"
  /// A user's session token.
  package static let sessionToken = "PARSE_SESSION_TOKEN"
}
