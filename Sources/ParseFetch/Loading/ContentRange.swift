/// A `Content-Range: bytes START-END/TOTAL` header, and whether it continues a partial file.
struct ContentRange: Equatable {
  var start: Int64
  var end: Int64
  var total: Int64

  /// Parses the header; nil for any other form (including an unknown total, `*`).
  init?(_ header: String?) {
    guard let header, header.hasPrefix("bytes ") else { return nil }
    let parts = header.dropFirst(6).split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let total = Int64(parts[1]) else { return nil }
    let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
    guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]) else {
      return nil
    }
    (self.start, self.end, self.total) = (start, end, total)
  }

  /// Whether this answer carries the rest of a file of which `offset` bytes are on disk.
  ///
  /// The start must equal `offset` and the range must run to the end of a consistent total.
  /// Parse Server writes the end one too high (exclusive), so an end equal to the total is
  /// accepted too: the body length is taken from the total, not from the end.
  func continues(from offset: Int64) -> Bool {
    start == offset && start < total && (end == total - 1 || end == total)
  }
}
