import CHandoff
import ImgfetchCLI
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// How `imgfetch` and imgfetch-fetch share a single object's run, so the object is asked for once
/// and a miss does not wait for a second process to start (issue 10.5).
///
/// `imgfetch` starts imgfetch-fetch as soon as it knows the run is a single object's
/// (``Companion/start()``), with its standard descriptors on /dev/null and one end of a socket pair
/// (its number in `IMGFETCH_HANDOFF_FD`), and tries the hit meanwhile. A hit closes the socket:
/// imgfetch-fetch, still starting or waiting (``adoptIfStarted()``), exits without a word. Anything
/// else sends one message with `imgfetch`'s standard descriptors (``Companion/handOver(_:)``):
/// the resolved file of a miss, or that the request was made and not taken; imgfetch-fetch takes
/// the descriptors over and goes on as if exec'd, and `imgfetch` waits for it and exits with its
/// status (passing on SIGINT and SIGTERM sent to it). When it cannot be started, `imgfetch` execs
/// it after the attempt with the message in a pipe (``exec(_:)``).
///
/// The message never travels in the arguments or the environment, which other processes can read,
/// and holds no credential: the object, the column, the server URL, the file's name and URL as the
/// server gave them. imgfetch-fetch uses it only when it names the run's own object, column and
/// server.
package enum HitHandoff {
  /// The environment variable holding the descriptor (a socket when started, a pipe when exec'd).
  package static let variable = "IMGFETCH_HANDOFF_FD"
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
    /// No request was made (libcurl could not be loaded): imgfetch-fetch tries the hit itself.
    case untried

    /// The message as bytes, or nil when a field holds a NUL (then it cannot travel).
    var bytes: [UInt8]? {
      let fields: [String]
      switch self {
      case .resolved(let file):
        fields = [magic, "resolved", file.source, file.column, file.server, file.fileName, file.fileURL]
      case .requested: fields = [magic, "requested"]
      case .untried: fields = [magic, "untried"]
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
      case ["untried"]: self = .untried
      case let rest where rest.count == 6 && rest[0] == "resolved":
        self = .resolved(
          Resolved(source: rest[1], column: rest[2], server: rest[3], fileName: rest[4], fileURL: rest[5]))
      default: return nil
      }
    }
  }

  /// imgfetch-fetch started beside the hit's attempt.
  struct Companion {
    let socket: Int32
    let pid: pid_t

    /// Starts imgfetch-fetch (same arguments), or returns nil.
    static func start() -> Companion? {
      var pid: pid_t = 0
      let socket = handoff_spawn(Imgfetch.networkExecutablePath(), CommandLine.unsafeArgv, variable, &pid)
      return socket < 0 ? nil : Companion(socket: socket, pid: pid)
    }

    /// The hit was served (or the run interrupted): imgfetch-fetch, which has made nothing yet (it
    /// is still starting, or waiting for the message), is stopped at once rather than left to finish
    /// its start-up for nothing; were it to outlive the signal, the closed socket ends it silently.
    func dismiss() {
      close(socket)
      kill(pid, SIGKILL)
    }

    /// Hands the run over and waits for imgfetch-fetch to finish it.
    /// - Returns: Its exit status, or nil when it could not be handed over (imgfetch-fetch is gone:
    ///   the caller execs it).
    func handOver(_ message: Message) -> Int32? {
      let bytes = message.bytes ?? Message.requested.bytes ?? []
      guard handoff_send(socket, bytes, bytes.count) == 0 else {
        close(socket)
        return nil
      }
      close(socket)
      return handoff_wait(pid)
    }
  }

  /// The message this imgfetch-fetch adopted (``adoptIfStarted()``).
  nonisolated(unsafe) private static var adopted: Message?

  /// In imgfetch-fetch, before anything else: when `imgfetch` started it beside a hit's attempt,
  /// waits for the outcome. A served hit (the socket closed) ends this process at once, silently;
  /// a hand-over makes `imgfetch`'s standard descriptors this process's and keeps the message for
  /// ``receive()``. Anything else (no variable, a pipe) returns at once.
  package static func adoptIfStarted() {
    guard let text = getenv(variable).map({ String(cString: $0) }), let descriptor = Int32(text), descriptor > 2,
      FileStatus.of("/proc/self/fd/\(descriptor)")?.kind == .socket
    else { return }
    unsetenv(variable)
    var buffer = [UInt8](repeating: 0, count: maximumBytes)
    let count = buffer.withUnsafeMutableBufferPointer { handoff_adopt(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
    guard count > 0 else { _exit(0) }
    adopted = Message(bytes: buffer[..<count]) ?? .requested
  }

  /// Takes the hand-off, if this process was given one: the adopted message, or the one in the
  /// pipe of an exec (and removes the variable from the environment).
  /// - Returns: The message, or nil when there is none or it cannot be read.
  package static func receive() -> Message? {
    if let message = adopted {
      adopted = nil
      return message
    }
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

  /// Writes `message` into a pipe and replaces this process with imgfetch-fetch (same arguments),
  /// when it could not be started beside the attempt.
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
