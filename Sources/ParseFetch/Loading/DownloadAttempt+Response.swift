extension DownloadAttempt {
  /// What to do with an answer's body.
  enum Decision {
    /// Keep the first `start` bytes of the `.part` file and append the body; `total` is the
    /// full file size when it is known and the body is not compressed.
    case write(start: Int64, total: Int64?)
    /// Keep the start of an error body for the message.
    case collectError(status: Int, retryAfter: Duration?)
    /// Do not read the body.
    case stop(Outcome)
  }

  /// Judges the status line and headers before any body byte is written.
  ///
  /// A 200 always restarts the file from byte 0, which is how a server that ignores `Range`
  /// is handled. A 206 is used only when it continues exactly where the `.part` file ends
  /// (see ``ContentRange/continues(from:)``); any other 206, and 416, restart the download.
  func decide(_ response: HTTPResponseHead, offset: Int64, maximumBytes: Int64, url: String) -> Decision {
    let encoding = response.value("Content-Encoding")?.lowercased() ?? ""
    let compressed = !(encoding.isEmpty || encoding == "identity")
    let length = response.value("Content-Length").flatMap { Int64($0) }
    let total: Int64?
    let start: Int64
    // A resume asks for the stored bytes themselves (identity) and decodes none: a server that
    // encodes the answer all the same would have its compressed bytes stored as the file's.
    if offset > 0, compressed, (200..<300).contains(response.status) { return .stop(.restart) }
    switch response.status {
    case 200:
      (start, total) = (0, compressed ? nil : length)
    case 206 where offset > 0:
      guard !compressed,
        let range = ContentRange(response.value("Content-Range")),
        range.continues(from: offset)
      else { return .stop(.restart) }
      (start, total) = (offset, range.total)
    case 416 where offset > 0:
      return .stop(.restart)
    case 200..<300:
      let reason = "HTTP \(response.status) instead of a file body"
      return .stop(.failed(.unusableResponse(url: url, reason: reason)))
    case let status:
      let retryAfter = RetryPolicy.retryAfter(response.value("Retry-After"))
      return .collectError(status: status, retryAfter: retryAfter)
    }
    if let total, total > maximumBytes {
      return .stop(.failed(.tooLarge(url: url, limit: maximumBytes)))
    }
    return .write(start: start, total: total)
  }
}
