import FoundationEssentials

/// The scheme, host and port of a URL: the unit to which credentials may be sent.
///
/// Two URLs share an origin when all three match, with an absent port standing for the
/// scheme's default (80 for http, 443 for https).
struct Origin: Hashable, Sendable, CustomStringConvertible {
  var scheme: String
  var host: String
  var port: Int

  /// The origin of `url`; nil when it has no scheme or host.
  init?(_ url: URL?) {
    guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
      !host.isEmpty
    else { return nil }
    self.scheme = scheme
    self.host = host
    self.port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
  }

  /// `scheme://host:port`, the port left out when it is the scheme's default.
  var description: String {
    let isDefault = (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
    return "\(scheme)://\(host)" + (isDefault || port < 0 ? "" : ":\(port)")
  }
}

/// Request headers that may go only to one origin, such as Parse credentials.
struct ScopedHeaders: Sendable {
  /// The header fields.
  var fields: [String: String]
  /// The only origin that may receive them; nil sends them nowhere.
  var origin: Origin?

  /// Whether a request to `url` may carry the fields.
  func allows(_ url: URL) -> Bool { origin != nil && Origin(url) == origin }

  /// The fields for a request to `url`: all of them on the origin, none elsewhere (so a redirect to
  /// another host drops them, and one back to the origin carries them again). Sorted by name, so
  /// requests are the same from run to run.
  func fields(for url: URL) -> [HeaderField] {
    guard allows(url) else { return [] }
    return fields.sorted { $0.key < $1.key }.map { HeaderField(name: $0.key, value: $0.value) }
  }
}
