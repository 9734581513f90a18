import FoundationEssentials

/// A JSON value as Parse sends it, kept whole so a column's actual type can be reported (decoded by
/// FoundationEssentials' `JSONDecoder`).
enum JSONValue: Sendable, Equatable, Decodable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Double.self) {
      self = .number(value)
    } else if let value = try? container.decode(String.self) {
      self = .string(value)
    } else if let value = try? container.decode([JSONValue].self) {
      self = .array(value)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// Parses a whole body; nil when it is not JSON.
  static func parse(_ bytes: some Sequence<UInt8>) -> JSONValue? {
    try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
  }

  subscript(key: String) -> JSONValue? {
    if case .object(let fields) = self { fields[key] } else { nil }
  }

  var string: String? { if case .string(let text) = self { text } else { nil } }

  /// What the value is, in words, for messages: `a string`, `null`, `a Pointer`.
  var kindDescription: String {
    switch self {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object(let fields):
      if let type = fields["__type"]?.string { "a \(type)" } else { "an object" }
    }
  }
}
