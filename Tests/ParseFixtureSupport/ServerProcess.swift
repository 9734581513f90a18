import Foundation

/// A server child process that prints `PORT <n>` when ready; terminated by `stop()` or deinit.
public final class ServerProcess: @unchecked Sendable {
  public let port: Int
  private let process: Process

  /// Starts `arguments[0]` and waits for its `PORT` line on a thread of its own, so the
  /// blocking reads and polls never hold up Swift's cooperative pool (2 threads here), where
  /// they would starve the downloads and timers of tests running in parallel.
  public static func start(_ arguments: [String]) async throws -> ServerProcess {
    try await withCheckedThrowingContinuation { continuation in
      Thread { continuation.resume(with: Result { try ServerProcess(arguments) }) }.start()
    }
  }

  /// Starts `arguments[0]` and waits for its `PORT` line, blocking the calling thread.
  ///
  /// The child starts through a small python trampoline that unblocks every signal: a child
  /// spawned by `Process` from a test thread inherits that thread's mask, in which SIGTERM is
  /// blocked, so it would otherwise never stop.
  private init(_ arguments: [String]) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    let unblock =
      "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])"
    process.arguments = ["python3", "-c", unblock] + arguments
    process.environment = ProcessInfo.processInfo.environment.merging(
      ["NGINX_TEST_HOST_WATCH_PARENT": "1"]) { $1 }
    let output = Pipe()
    process.standardOutput = output
    // Never the test process's own stderr: `swift test` reads that pipe until every holder
    // closes it, so a server that outlives the test binary would hang the run.
    let log = FileManager.default.temporaryDirectory.appendingPathComponent("server-\(UUID().uuidString).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    process.standardError = try FileHandle(forWritingTo: log)
    try process.run()
    var text = ""
    while !text.contains("\n") {
      let chunk = output.fileHandleForReading.availableData
      guard !chunk.isEmpty else { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    guard let line = text.split(separator: "\n").first, line.hasPrefix("PORT "),
      let port = Int(line.dropFirst(5))
    else {
      process.terminate()
      let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      throw StartFailure(command: arguments.joined(separator: " "), output: text + errors)
    }
    self.port = port
    try? FileManager.default.removeItem(at: log)  // the child keeps writing to the open file
    try waitUntilListening()
  }

  deinit { stop() }

  /// Sends SIGTERM. It does not wait: on Linux `waitUntilExit()` can hang off the main
  /// thread, and the servers exit at once on SIGTERM anyway.
  public func stop() {
    if process.isRunning { process.terminate() }
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
