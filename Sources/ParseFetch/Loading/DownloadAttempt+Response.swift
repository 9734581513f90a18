import Foundation
import SystemFiles

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

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
  func decide(_ response: HTTPURLResponse?, offset: Int64, maximumBytes: Int64, url: String)
    -> Decision
  {
    guard let response else {
      return .stop(.failed(.unusableResponse(url: url, reason: "not an HTTP answer")))
    }
    let encoding = response.value(forHTTPHeaderField: "Content-Encoding")?.lowercased() ?? ""
    let compressed = !(encoding.isEmpty || encoding == "identity")
    let length = response.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) }
    let total: Int64?
    let start: Int64
    switch response.statusCode {
    case 200:
      (start, total) = (0, compressed ? nil : length)
    case 206 where offset > 0:
      guard !compressed,
        let range = ContentRange(response.value(forHTTPHeaderField: "Content-Range")),
        range.continues(from: offset)
      else { return .stop(.restart) }
      (start, total) = (offset, range.total)
    case 416 where offset > 0:
      return .stop(.restart)
    case 200..<300:
      let reason = "HTTP \(response.statusCode) instead of a file body"
      return .stop(.failed(.unusableResponse(url: url, reason: reason)))
    case let status:
      let retryAfter = RetryPolicy.retryAfter(response.value(forHTTPHeaderField: "Retry-After"))
      return .collectError(status: status, retryAfter: retryAfter)
    }
    if let total, total > maximumBytes {
      return .stop(.failed(.tooLarge(url: url, limit: maximumBytes)))
    }
    return .write(start: start, total: total)
  }
}

/// Appends to a `.part` file, after cutting it to the bytes that are kept.
final class PartFileWriter {
  private let handle: FileHandle
  /// Bytes in the file.
  private(set) var size: Int64

  init(_ path: String, keeping bytes: Int64) throws {
    // open(2), not FileManager.createFile: Foundation writes that file atomically, through a hidden
    // `.dat.nosync<random>` file beside it, which a kill left in the cache as a file no command knows.
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw SystemError.last("open", path) }
    handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    try handle.truncate(atOffset: UInt64(bytes))
    try handle.seekToEnd()
    size = bytes
  }

  func append(_ data: Data) throws {
    try handle.write(contentsOf: data)
    size += Int64(data.count)
  }

  func close() { try? handle.close() }
}
