import FoundationEssentials

/// One GET the ``HTTPClient`` sends: where, with which header fields, which redirects it follows,
/// how long the connection may stay silent, how slowly the answer may come and how long it may take.
struct HTTPRequest: Sendable {
  /// The URL; http or https.
  var url: URL
  /// Header fields, in order (the User-Agent is the client's). No value may hold a line break.
  var fields: [HeaderField]
  /// Which redirects are followed, and with which fields.
  var redirects: RedirectRule
  /// How long nothing may arrive (connecting included) before the exchange fails.
  var idleTimeout: Duration
  /// The speed floor, in bytes a second, averaged over each window of ``idleTimeout`` from the first
  /// byte of a hop's answer (head included); 0 for none.
  var minimumSpeed: Int = 0
  /// The longest the whole exchange (every hop) may take; nil for no limit.
  var deadline: Duration? = nil
  /// Whether any content encoding libcurl supports is asked for and decoded (false: none is asked
  /// for, as a resumed download needs the stored bytes themselves).
  var decodesContent = true
}

/// A request or response header field.
struct HeaderField: Sendable, Equatable {
  /// The name, as written.
  var name: String
  /// The value.
  var value: String
}

/// Which redirects an exchange follows (301, 302, 303, 307 and 308 with a `Location`, to http or
/// https, at most 20 in a row), and the header fields each next request carries.
struct RedirectRule: Sendable {
  /// The fields of the request to a redirect's target, or nil to not follow it: the redirect is
  /// then the exchange's answer.
  let fields: @Sendable (URL) -> [HeaderField]?

  /// Follows none: a redirect is the answer.
  static let none = RedirectRule { _ in nil }
}
