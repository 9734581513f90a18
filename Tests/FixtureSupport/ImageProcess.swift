import Foundation

/// The outcome of running a command: exit status and captured output.
public struct ProcessResult: Sendable {
  /// The exit status (or 128 + signal when killed).
  public let status: Int32
  /// Standard output bytes.
  public let stdout: [UInt8]
  /// Standard error bytes.
  public let stderr: [UInt8]
  /// Standard output as UTF-8 text.
  public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
  /// Standard error as UTF-8 text.
  public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}

/// Runs the built `imgfetch` as a user would.
/// - Parameters:
///   - arguments: Command-line arguments.
///   - environment: Extra environment variables.
/// - Returns: Exit status and output.
public func runImgfetch(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
  try runProcess(
    Fixtures.productsDirectory.appendingPathComponent("imgfetch").path, arguments, environment: environment)
}

/// Runs an executable and collects its output (both pipes drained concurrently). Its standard input
/// is /dev/null, and it gets no other descriptor of the test process (see ``ChildProcess``).
///
/// A hang guard: a child that has not finished after `limit` is killed with its process group
/// (`SIGKILL`), and the result says so (status 137, a note at the end of standard error), so a hung
/// child fails its test instead of holding the whole run (Swift Testing's time limits record a
/// failure but cannot end a test blocked in a read).
/// - Parameters:
///   - path: The executable.
///   - arguments: Its arguments.
///   - environment: Extra environment variables.
///   - limit: The hang guard; 5 minutes by default, far above any child the tests start.
/// - Returns: Exit status and output.
public func runProcess(
  _ path: String, _ arguments: [String], environment: [String: String] = [:], limit: Duration = .seconds(300)
) throws -> ProcessResult {
  let out = try ChildProcess.pipe()
  let err = try ChildProcess.pipe()
  let pid = try ChildProcess.spawn(
    [path] + arguments, environment: environment, stdio: [-1, out.writing.fileDescriptor, err.writing.fileDescriptor])
  let hangGuard = HangGuard(processGroup: pid, limit: limit)
  // The child has its own copies now. Ours go, so the reads below end when the child and whatever
  // it left running have closed theirs.
  try out.writing.close()
  try err.writing.close()
  let group = DispatchGroup()
  nonisolated(unsafe) var errData = Data()
  group.enter()
  // A thread of its own: a global dispatch thread blocked here for the child's whole run would be
  // one of the few (one per core on Linux) that in-process tests' URLSession callbacks need.
  Thread {
    errData = err.reading.readDataToEndOfFile()
    group.leave()
  }.start()
  let outData = out.reading.readDataToEndOfFile()
  group.wait()
  // Disarmed before the child is reaped: the guard never signals a process group id that a reaped
  // child has given back.
  let struck = hangGuard.disarm()
  let status = ChildProcess.wait(pid)
  if struck {
    errData.append(contentsOf: Array("\n[runProcess: \(path) ran past \(limit); its process group was killed]\n".utf8))
  }
  return ProcessResult(status: status, stdout: [UInt8](outData), stderr: [UInt8](errData))
}

/// Kills a process group (`SIGKILL`) unless disarmed within a time limit: a thread that waits on a
/// condition until the deadline.
final class HangGuard: @unchecked Sendable {
  private let condition = NSCondition()
  private var disarmed = false
  private var struck = false

  /// Arms the guard.
  /// - Parameters:
  ///   - processGroup: The group to kill (a child started by ``ChildProcess`` leads its own).
  ///   - limit: How long it may run.
  init(processGroup: pid_t, limit: Duration) {
    let deadline = Date(timeIntervalSinceNow: Double(limit.components.seconds))
    Thread { [self] in
      condition.lock()
      defer { condition.unlock() }
      while !disarmed && condition.wait(until: deadline) {}
      if !disarmed {
        struck = true
        kill(-processGroup, SIGKILL)
      }
    }.start()
  }

  /// Stops the guard.
  /// - Returns: Whether it had already struck.
  func disarm() -> Bool {
    condition.lock()
    defer { condition.unlock() }
    disarmed = true
    condition.signal()
    return struck
  }
}

/// ``runProcess(_:_:environment:limit:)`` for async tests: the wait for the child runs on a thread of its
/// own, so it holds none of Swift's cooperative threads (two on a 2-core machine), which the other
/// tests' tasks need meanwhile.
/// - Parameters:
///   - path: The executable.
///   - arguments: Its arguments.
///   - environment: Extra environment variables.
/// - Returns: Exit status and output.
public func runProcessOffThePool(
  _ path: String, _ arguments: [String], environment: [String: String] = [:], limit: Duration = .seconds(300)
) async throws -> ProcessResult {
  try await offThePool { try runProcess(path, arguments, environment: environment, limit: limit) }
}

/// Runs blocking work (a wait for a child, a polling loop with `usleep`) on a thread of its own and
/// returns its result: it holds none of Swift's cooperative threads, and needs none to make progress.
/// A `Task.sleep` poll waits for a free cooperative thread each time it wakes, which the suite's
/// synchronous tests (each blocking one while its child runs) can hold for minutes under
/// AddressSanitizer and load.
/// - Parameter body: The work.
/// - Returns: What `body` returned.
public func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}
