import FoundationEssentials

extension ParseConfiguration: CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// A summary that shows the server and application id and hides every key and token.
  public var description: String {
    func mark(_ value: String?) -> String { value == nil ? "nil" : "<redacted>" }
    return
      "ParseConfiguration(serverURL: \(serverURL.redactedForLog), applicationID: \(applicationID), "
      + "restAPIKey: \(mark(restAPIKey)), masterKey: \(mark(masterKey)), "
      + "sessionToken: \(mark(sessionToken)))"
  }

  /// The same text as `description`, so debug output hides the secrets too.
  public var debugDescription: String { description }

  /// A mirror without the secret values, so `dump(_:)` and debuggers do not show them.
  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "serverURL": serverURL.redactedForLog, "applicationID": applicationID,
        "restAPIKey": restAPIKey == nil ? "nil" : "<redacted>",
        "masterKey": masterKey == nil ? "nil" : "<redacted>",
        "sessionToken": sessionToken == nil ? "nil" : "<redacted>",
      ], displayStyle: .struct)
  }
}

extension URL {
  /// The URL without user info, query and fragment, which may hold credentials or signatures
  /// (presigned storage links); safe to put in messages and logs.
  var redactedForLog: String {
    guard var parts = URLComponents(url: self, resolvingAgainstBaseURL: false) else {
      return "<unprintable URL>"
    }
    let hadQuery = parts.query != nil
    parts.user = nil
    parts.password = nil
    parts.query = nil
    parts.fragment = nil
    return (parts.string ?? "<unprintable URL>") + (hadQuery ? "?…" : "")
  }
}
