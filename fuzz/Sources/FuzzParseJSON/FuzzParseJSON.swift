import Foundation
import ParseFetch

/// libFuzzer entry point: the Parse response parsing of a file-column request. The first byte
/// picks the HTTP status, the second the length of a `Retry-After` value that follows it, and the
/// rest is the body. Every outcome must be a `ParseFile` or a one-line `ParseError`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParseJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = UnsafeBufferPointer(start: data, count: size)
  guard size >= 2 else { return 0 }
  let statuses = [200, 201, 204, 301, 400, 401, 403, 404, 429, 500, 502, 503]
  let status = statuses[Int(bytes[0]) % statuses.count]
  let headerLength = min(Int(bytes[1]) % 33, size - 2)
  var headers = ["Content-Type": "application/json; charset=utf-8"]
  if headerLength > 0 {
    headers["Retry-After"] = String(decoding: bytes[2..<2 + headerLength], as: UTF8.self)
  }
  let body = Data(bytes[(2 + headerLength)...])
  let object = ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm")
  do {
    let file = try ParseFile(response: status, headers: headers, body: body, of: object, column: "MainImage")
    precondition(!file.name.isEmpty && file.url.scheme != nil)
  } catch {
    _ = error.description
  }
  return 0
}
