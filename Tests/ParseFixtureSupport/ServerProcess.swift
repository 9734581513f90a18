import FixtureSupport
import Foundation

/// A server child process that prints `PORT <n>` when ready; terminated by `stop()` or deinit.
///
/// It is started with ``ChildProcess`` rather than Foundation's `Process`, so it holds no descriptor
/// of the test process but its standard ones: a server lives for a whole test, and one that held
/// the write end of another test's pipe would keep that test waiting for EOF until it stopped.
public final class ServerProcess: @unchecked Sendable {
  public let port: Int
  /// The server's process id (the tests look into `/proc/<id>/fd`).
  public let processIdentifier: pid_t
  /// The read end of the server's standard output, open while it runs so it can keep writing.
  private let output: FileHandle
  private let stopping = NSLock()
  private var stopped = false

  /// Starts `arguments[0]` and waits for its `PORT` line on a thread of its own, so the
  /// blocking reads and polls never hold up Swift's cooperative pool (2 threads here), where
  /// they would starve the downloads and timers of tests running in parallel.
  public static func start(_ arguments: [String]) async throws -> ServerProcess {
    try await withCheckedThrowingContinuation { continuation in
      Thread { continuation.resume(with: Result { try ServerProcess(arguments) }) }.start()
    }
  }

  /// Starts `arguments[0]` and waits for its `PORT` line (at most two minutes: a server that never
  /// says it is ready is stopped and the start fails, rather than the test waiting for ever),
  /// blocking the calling thread.
  ///
  /// The server starts with no signal blocked (``ChildProcess``): a test thread's mask, which a
  /// child would inherit otherwise, blocks SIGTERM, and the server would never stop.
  private init(_ arguments: [String]) throws {
    let pipe = try ChildProcess.pipe()
    // Never the test process's own stderr: `swift test` reads that pipe until every holder
    // closes it, so a server that outlives the test binary would hang the run.
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString).log")
    let logFile = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    defer {
      if logFile >= 0 { close(logFile) }
      try? FileManager.default.removeItem(at: log)  // the server keeps writing to the open file
    }
    let pid = try ChildProcess.spawn(
      arguments, environment: ["NGINX_TEST_HOST_WATCH_PARENT": "1"], stdio: [-1, pipe.writing.fileDescriptor, logFile])
    try pipe.writing.close()
    var text = ""
    let deadline = ContinuousClock.now + .seconds(120)
    while !text.contains("\n") && ContinuousClock.now < deadline {
      var ready = pollfd(fd: pipe.reading.fileDescriptor, events: Int16(POLLIN), revents: 0)
      guard poll(&ready, 1, 100) > 0 else { continue }  // nothing yet, or EINTR: look again
      let chunk = pipe.reading.availableData
      guard !chunk.isEmpty else { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    processIdentifier = pid
    output = pipe.reading
    guard let line = text.split(separator: "\n").first, line.hasPrefix("PORT "),
      let port = Int(line.dropFirst(5))
    else {
      port = 0
      stop()
      let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      throw StartFailure(command: arguments.joined(separator: " "), output: text + errors)
    }
    self.port = port
    try waitUntilListening()
  }

  deinit { stop() }

  /// Sends SIGTERM (once), then reaps the server on a thread of its own without waiting for it:
  /// the servers exit at once on SIGTERM, and the caller may be one of the cooperative threads.
  /// Nothing reaps the server before this, so its process id cannot have passed to another process.
  public func stop() {
    let first = stopping.withLock {
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    kill(processIdentifier, SIGTERM)
    let pid = processIdentifier
    Thread { _ = ChildProcess.wait(pid) }.start()
  }

  /// Polls the port until a TCP connection succeeds (at most 10 s).
  private func waitUntilListening() throws {
    for _ in 0..<200 {
      let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      defer { close(socket) }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = in_port_t(UInt16(port).bigEndian)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      if connected { return }
      usleep(50_000)
    }
    throw StartFailure(command: "port \(port)", output: "never accepted a connection")
  }

  public struct StartFailure: Error, CustomStringConvertible {
    var command: String
    var output: String
    public var description: String { "could not start \(command): \(output)" }
  }
}
