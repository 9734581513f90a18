import Foundation

/// A finished child process with the resources it used, as the kernel counted them for it alone.
public struct MeasuredResult: Sendable {
  /// Exit status and output.
  public let result: ProcessResult
  /// The child's peak resident set size in bytes (`ru_maxrss` from `wait4`).
  public let peakResidentBytes: Int
  /// Wall time from spawn to exit.
  public let elapsed: Duration
}

/// Forks, execs the command and reaps it with `wait4`, writing its `ru_maxrss` (KiB) to argv[1] and
/// exiting with its status. Why a small intermediary: Linux keeps a process's RSS high-water mark
/// across `execve`, and a child spawned straight from the test process (vfork/posix_spawn share its
/// memory) would report the test process's ~130 MB as its own peak. Python's ~10 MB is the floor here.
private let wait4Script = """
  import os, sys
  pid = os.fork()
  if pid == 0:
      try:
          os.execv(sys.argv[2], sys.argv[2:])
      finally:
          os._exit(127)
  _, status, usage = os.wait4(pid, 0)
  open(sys.argv[1], "w").write(str(usage.ru_maxrss))
  code = os.waitstatus_to_exitcode(status)
  sys.exit(code if code >= 0 else 128 - code)
  """

/// Runs an executable and measures its peak resident memory with `wait4` (through a small Python
/// intermediary; see `wait4Script`) and its wall time.
/// - Parameters:
///   - path: The executable.
///   - arguments: Its arguments.
///   - environment: Extra environment variables.
/// - Returns: Status, output, peak RSS and wall time.
public func runMeasured(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws
  -> MeasuredResult
{
  let scratch = try Fixtures.temporaryDirectory()
  defer { try? FileManager.default.removeItem(at: scratch) }
  let rssFile = scratch.appendingPathComponent("maxrss").path
  let clock = ContinuousClock()
  let start = clock.now
  let result = try runProcess(
    "/usr/bin/python3", ["-c", wait4Script, rssFile, path] + arguments, environment: environment)
  let elapsed = clock.now - start
  let kibibytes = Int((try? String(contentsOfFile: rssFile, encoding: .utf8)) ?? "") ?? Int.max / 1024
  return MeasuredResult(result: result, peakResidentBytes: kibibytes * 1024, elapsed: elapsed)
}

/// Runs the built `imgfetch` through ``runMeasured(_:_:environment:)``.
/// - Parameters:
///   - arguments: Command-line arguments.
///   - environment: Extra environment variables.
/// - Returns: Status, output, peak RSS and wall time.
public func runImgfetchMeasured(_ arguments: [String], environment: [String: String] = [:]) throws -> MeasuredResult {
  try runMeasured(
    Fixtures.productsDirectory.appendingPathComponent("imgfetch").path, arguments, environment: environment)
}
