extension ParseError {
  /// Classifies an HTTP answer that is not a success.
  /// - Parameters:
  ///   - response: The HTTP response.
  ///   - body: Its body.
  ///   - object: The object asked for, to name it when it is not found.
  /// - Returns: The matching error; Parse errors are matched on their `code`.
  static func from(response: HTTPResponseHead, body: [UInt8], object: ParseObjectReference?) -> ParseError {
    let status = response.status
    let retryAfter = RetryPolicy.retryAfter(response.value("Retry-After"))
    guard case .object(let fields)? = JSONValue.parse(body) else {
      if status == 429 { return .rateLimited(retryAfter: retryAfter, message: "HTTP 429") }
      return .unexpectedResponse(
        status: status, contentType: response.value("Content-Type"),
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

  /// A short, single-line piece of a non-JSON body: an HTML page's title, or its first text; empty
  /// for a body that is not text (invalid UTF-8 or control characters, such as an image sent with
  /// an error status), which would otherwise reach the terminal as it is.
  static func excerpt(of body: [UInt8]) -> String {
    let piece = textExcerpt(of: body)
    let isText = piece.unicodeScalars.allSatisfy { scalar in
      scalar != "\u{FFFD}" && (scalar == "\t" || scalar.properties.generalCategory != .control)
    }
    return isText ? String(piece.prefix(120)) : ""
  }

  private static func textExcerpt(of body: [UInt8]) -> String {
    let text = String(decoding: body.prefix(4096), as: UTF8.self)
    let bytes = Array(text.utf8)
    // ASCII letters lower-cased byte for byte, so offsets in `lower` are offsets in `bytes`.
    let lower = bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }
    if let open = lower.firstRange(of: Array("<title>".utf8)),
      let close = lower[open.upperBound...].firstRange(of: Array("</title>".utf8))
    {
      return String(decoding: bytes[open.upperBound..<close.lowerBound], as: UTF8.self).trimmingASCIIWhitespace()
    }
    let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
    return String(line.prefix(120))
  }
}

