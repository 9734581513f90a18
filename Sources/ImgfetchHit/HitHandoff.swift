import ImgfetchCLI
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// What `imgfetch` hands to imgfetch-fetch after trying a warm hit itself, so the object is asked
/// for once either way: the resolved file of a miss, or that the request was made and not taken.
///
/// It travels in a pipe whose read end the exec'd process inherits (its number in
/// `IMGFETCH_HANDOFF_FD`, which imgfetch-fetch removes from its environment): never in the
/// arguments or the environment, which other processes can read, and it holds no credential (the
/// object, the column, the server URL, the file's name and URL as the server gave them).
/// imgfetch-fetch uses it only when it names the run's own object, column and server.
package enum HitHandoff {
  /// The environment variable holding the pipe's descriptor.
  static let variable = "IMGFETCH_HANDOFF_FD"
  /// The first field, naming the format.
  static let magic = "imgfetch-handoff-1"
  /// The most bytes of a message (a pipe takes 64 KiB without a reader).
  static let maximumBytes = 60 << 10

  /// A miss: the object's file, resolved by the hit's request.
  package struct Resolved: Sendable, Equatable {
    /// `Class/objectId`.
    package var source: String
    /// The file column.
    package var column: String
    /// The server URL (with its mount) the object was asked from.
    package var server: String
    /// The file's stored name.
    package var fileName: String
    /// The file's download URL, as the server gave it.
    package var fileURL: String
  }

  /// What is handed over.
  package enum Message: Sendable, Equatable {
    /// The file, not in the cache.
    case resolved(Resolved)
    /// The object request was made, and its answer is left to the full path.
    case requested

    /// The message as bytes, or nil when a field holds a NUL (then it cannot travel).
    var bytes: [UInt8]? {
      let fields: [String]
      switch self {
      case .resolved(let file):
        fields = [magic, "resolved", file.source, file.column, file.server, file.fileName, file.fileURL]
      case .requested: fields = [magic, "requested"]
      }
      guard !fields.contains(where: { $0.utf8.contains(0) }) else { return nil }
      let bytes = Array(fields.joined(separator: "\0").utf8)
      return bytes.count <= maximumBytes ? bytes : nil
    }

    /// Reads a message.
    init?(bytes: some Collection<UInt8>) {
      let fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map {
        String(decoding: $0, as: UTF8.self)
      }
      guard fields.first == magic else { return nil }
      switch Array(fields.dropFirst()) {
      case ["requested"]: self = .requested
      case let rest where rest.count == 6 && rest[0] == "resolved":
        self = .resolved(
          Resolved(source: rest[1], column: rest[2], server: rest[3], fileName: rest[4], fileURL: rest[5]))
      default: return nil
      }
    }
  }

  /// Takes the hand-off, if this process was given one (and removes it from the environment).
  /// - Returns: The message, or nil when there is none or it cannot be read.
  package static func receive() -> Message? {
    guard let text = getenv(variable).map({ String(cString: $0) }) else { return nil }
    unsetenv(variable)
    guard let descriptor = Int32(text), descriptor > 2, FileStatus.of("/proc/self/fd/\(descriptor)")?.kind == .fifo
    else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while bytes.count <= maximumBytes {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }
      bytes += chunk[..<count]
    }
    return Message(bytes: bytes)
  }

  /// Writes `message` into a pipe and replaces this process with imgfetch-fetch (same arguments).
  /// - Returns: ``ExitCode/fileSystem`` when the exec fails (after printing why).
  static func exec(_ message: Message) -> ExitCode {
    let bytes = message.bytes ?? Message.requested.bytes ?? []
    var ends: [Int32] = [-1, -1]
    if pipe(&ends) == 0 {
      // The write end must not reach imgfetch-fetch (it would never see the end of the message).
      _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
      let written = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
      close(ends[1])
      if written == bytes.count { setenv(variable, String(ends[0]), 1) } else { close(ends[0]) }
    }
    return Imgfetch.execNetworkExecutable()
  }
}
