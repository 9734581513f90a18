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
  /// An array of objects, each with its keys in order.
  case objects([JSONObject])

  var encoded: String {
    switch self {
    case .string(let text): return JSONText.quoted(text)
    case .int(let number): return String(number)
    case .double(let number): return number.isFinite ? String(number) : "null"
    case .bool(let flag): return flag ? "true" : "false"
    case .null: return "null"
    case .objects(let list): return "[" + list.map { jsonLine($0.fields) }.joined(separator: ",") + "]"
    }
  }
}

/// Encodes ordered key-value pairs as one line of JSON (no trailing newline).
/// - Parameter fields: The object's keys and values, in output order.
/// - Returns: The JSON text.
public func jsonLine(_ fields: [(String, JSONValue)]) -> String {
  "{" + fields.map { JSONText.quoted($0.0) + ":" + $0.1.encoded }.joined(separator: ",") + "}"
}

/// An object inside a JSON line, its keys kept in the order given.
public struct JSONObject: Sendable, Equatable {
  /// The keys, in output order.
  public var keys: [String]
  /// The values, one per key.
  public var values: [JSONValue]
  /// Creates an object.
  /// - Parameter fields: The keys and values, in output order.
  public init(_ fields: [(String, JSONValue)]) {
    keys = fields.map(\.0)
    values = fields.map(\.1)
  }
  /// The keys and values.
  var fields: [(String, JSONValue)] { Array(zip(keys, values)) }
}
