import FoundationEssentials

extension ParseFile {
  /// Reads the file column out of one answer to `GET classes/<Class>/<id>?keys=<column>`, exactly
  /// as ``ParseClient/file(of:column:)`` reads each attempt's answer (without its retries).
  ///
  /// ```swift
  /// let file = try ParseFile(response: 200, headers: [:], body: body, of: photo, column: "MainImage")
  /// ```
  ///
  /// It exists so that the response parsing can be tested and fuzzed without a server.
  /// - Parameters:
  ///   - status: The HTTP status code.
  ///   - headers: The response headers (`Retry-After` and `Content-Type` are read).
  ///   - body: The response body.
  ///   - object: The object that was asked for.
  ///   - column: The file column that was asked for.
  /// - Throws: ``ParseError``: what the answer means when it is not a 2xx Parse JSON object whose
  ///   column holds a File.
  public init(
    response status: Int, headers: [String: String], body: Data, of object: ParseObjectReference,
    column: String
  ) throws(ParseError) {
    if (200..<300).contains(status), let json = JSONValue.parse(body) {
      try self.init(column: json[column], of: object, column: column)
      return
    }
    let head = HTTPResponseHead(status: status, fields: headers.map { HeaderField(name: $0.key, value: $0.value) })
    throw .from(response: head, body: Array(body), object: object)
  }
}
