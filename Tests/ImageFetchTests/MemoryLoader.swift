import Foundation
import ParseFetch
import Synchronization

/// An in-process ``DataLoading``: serves bytes from memory in fixed chunks, writing the `.part`
/// file and feeding the consumer as the real downloader does, and counts what it did.
final class MemoryLoader: DataLoading {
  struct Counts {
    var downloads = 0
    var chunksFed = 0
    var bytesWritten = 0
  }

  let files: [URL: Data]
  let chunkSize: Int
  let counts = Mutex(Counts())

  init(_ files: [URL: Data], chunkSize: Int = 16 << 10) {
    self.files = files
    self.chunkSize = chunkSize
  }

  /// What the fetcher asked for so far.
  var seen: Counts { counts.withLock { $0 } }

  func download(
    from url: URL, to partFile: String, headers: [String: String], headersOrigin: URL?,
    consumer: DownloadConsumerFactory?, progress: ProgressHandler?
  ) async throws -> Int64 {
    counts.withLock { $0.downloads += 1 }
    guard let body = files[url] else {
      throw DownloadError.httpStatus(url: url.absoluteString, status: 404, excerpt: "", retryAfter: nil)
    }
    let sink = consumer?()
    guard FileManager.default.createFile(atPath: partFile, contents: nil) else {
      throw DownloadError.file(path: partFile, reason: "cannot create")
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partFile))
    defer { try? handle.close() }
    var offset = 0
    while offset < body.count {
      try Task.checkCancellation()
      let chunk = body[offset..<min(body.count, offset + chunkSize)]
      try handle.write(contentsOf: chunk)
      offset += chunk.count
      counts.withLock {
        $0.chunksFed += 1
        $0.bytesWritten = offset
      }
      try chunk.withUnsafeBytes { try sink?.consume($0) }
      progress?(DownloadProgress(bytesReceived: Int64(offset), bytesExpected: Int64(body.count)))
    }
    try sink?.finish(file: partFile)
    return Int64(body.count)
  }
}
