import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

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
    // Only an answer that is not a Parse object needs the response object (the warm hit parses
    // successful answers with this, and making one is a large share of its time).
    let url = URL(string: "http://127.0.0.1/")!
    guard
      let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)
    else { throw .unexpectedResponse(status: status, contentType: nil, excerpt: "not HTTP") }
    throw .from(response: response, body: body, object: object)
  }
}
