import FoundationEssentials

/// The status and header fields of an answer.
struct HTTPResponseHead: Sendable {
  /// The HTTP status code.
  var status: Int
  /// The header fields, in the order they came.
  var fields: [HeaderField]
  /// The absolute URL a redirect's `Location` names (resolved against the request's URL), if any.
  var redirectTarget: URL?

  /// The first value of a field, its name compared without case.
  /// - Parameter name: The field's name, such as `Content-Range`.
  /// - Returns: The value, or nil when the answer has no such field.
  func value(_ name: String) -> String? {
    let wanted = name.lowercased()
    return fields.first { $0.name.lowercased() == wanted }?.value
  }

  /// Reads one header line (`Name: value` with its CRLF) into `fields`; other lines are ignored.
  mutating func append(line: some Collection<UInt8>) {
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
    let name = String(decoding: line[..<colon], as: UTF8.self)
    let value = String(decoding: line[line.index(after: colon)...], as: UTF8.self)
    fields.append(HeaderField(name: name.trimmingASCIIWhitespace(), value: value.trimmingASCIIWhitespace()))
  }
}

extension String {
  /// Without leading and trailing spaces, tabs, CRs and LFs (the whitespace of HTTP fields).
  func trimmingASCIIWhitespace() -> String {
    let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
    let bytes = Array(utf8)
    guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(decoding: bytes[first...last], as: UTF8.self)
  }
}
