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
/// - Parameters:
///   - path: The executable.
///   - arguments: Its arguments.
///   - environment: Extra environment variables.
/// - Returns: Exit status and output.
public func runProcess(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws
  -> ProcessResult
{
  let out = try ChildProcess.pipe()
  let err = try ChildProcess.pipe()
  let pid = try ChildProcess.spawn(
    [path] + arguments, environment: environment, stdio: [-1, out.writing.fileDescriptor, err.writing.fileDescriptor])
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
  let status = ChildProcess.wait(pid)
  return ProcessResult(status: status, stdout: [UInt8](outData), stderr: [UInt8](errData))
}

/// ``runProcess(_:_:environment:)`` for async tests: the wait for the child runs on a thread of its
/// own, so it holds none of Swift's cooperative threads (two on a 2-core machine), which the other
/// tests' tasks need meanwhile.
/// - Parameters:
///   - path: The executable.
///   - arguments: Its arguments.
///   - environment: Extra environment variables.
/// - Returns: Exit status and output.
public func runProcessOffThePool(_ path: String, _ arguments: [String], environment: [String: String] = [:])
  async throws -> ProcessResult
{
  try await offThePool { try runProcess(path, arguments, environment: environment) }
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
