import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

extension ParseError {
  /// Classifies an HTTP answer that is not a success.
  /// - Parameters:
  ///   - response: The HTTP response.
  ///   - body: Its body.
  ///   - object: The object asked for, to name it when it is not found.
  /// - Returns: The matching error; Parse errors are matched on their `code`.
  static func from(response: HTTPURLResponse, body: Data, object: ParseObjectReference?)
    -> ParseError
  {
    let status = response.statusCode
    let retryAfter = RetryPolicy.retryAfter(response.value(forHTTPHeaderField: "Retry-After"))
    guard case .object(let fields)? = JSONValue.parse(body) else {
      if status == 429 { return .rateLimited(retryAfter: retryAfter, message: "HTTP 429") }
      return .unexpectedResponse(
        status: status, contentType: response.value(forHTTPHeaderField: "Content-Type"),
        excerpt: excerpt(of: body))
    }
    let message = fields["error"]?.string ?? fields["message"]?.string ?? "no message"
    // A code that is not a whole number within Int's range (`1e30`) is treated as no code.
    guard case .number(let number)? = fields["code"], let code = Int(exactly: number) else {
      if status == 403 { return .unauthorized }
      if status == 429 { return .rateLimited(retryAfter: retryAfter, message: message) }
      return .server(status: status, code: 0, message: message)
    }
    if code == 101, let object { return .objectNotFound(object, message: message) }
    switch code {
    case 209: return .invalidSessionToken(message: message)
    case 119: return .forbidden(message: message)
    case 102: return .invalidQuery(message: message)
    case _ where status == 429: return .rateLimited(retryAfter: retryAfter, message: message)
    default: return .server(status: status, code: code, message: message)
    }
  }

  /// A short, single-line piece of a non-JSON body: an HTML page's title, or its first text.
  static func excerpt(of body: Data) -> String {
    let text = String(decoding: body.prefix(4096), as: UTF8.self)
    if let open = text.range(of: "<title>", options: .caseInsensitive),
      let close = text.range(
        of: "</title>", options: .caseInsensitive, range: open.upperBound..<text.endIndex)
    {
      return String(text[open.upperBound..<close.lowerBound]).trimmingCharacters(in: .whitespaces)
    }
    let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    return String(line.prefix(120))
  }
}
