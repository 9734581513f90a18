import ParseFetch

/// A JSON value for one-object-per-line output, with keys kept in the order given.
public enum JSONValue: Sendable, Equatable {
  /// A string.
  case string(String)
  /// An integer.
  case int(Int)
  /// A number.
  case double(Double)
  /// `true` or `false`.
  case bool(Bool)
  /// `null`.
  case null

  var encoded: String {
    switch self {
    case .string(let text): return JSONText.quoted(text)
    case .int(let number): return String(number)
    case .double(let number): return number.isFinite ? String(number) : "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .null: return "null"
    }
  }
}

/// Encodes ordered key-value pairs as one line of JSON (no trailing newline).
/// - Parameter fields: The object's keys and values, in output order.
/// - Returns: The JSON text.
public func jsonLine(_ fields: [(String, JSONValue)]) -> String {
  "{" + fields.map { JSONText.quoted($0.0) + ":" + $0.1.encoded }.joined(separator: ",") + "}"
}
