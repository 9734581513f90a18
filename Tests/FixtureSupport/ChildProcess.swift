import CFixtureSupport
import Foundation

/// Starting and reaping the tests' child processes without Foundation's `Process`, so that a child
/// holds its three standard descriptors and nothing else of the test process (see
/// `Tests/CFixtureSupport/spawn.c` for why `Process` cannot promise that while tests run in parallel).
public enum ChildProcess {
  /// A pipe whose ends are close-on-exec from the start: only a child given an end as one of its
  /// standard descriptors holds it, never one that another test starts meanwhile.
  /// - Returns: The read and write ends, each closed when its handle is released.
  /// - Throws: `POSIXError` when the pipe cannot be made.
  public static func pipe() throws -> (reading: FileHandle, writing: FileHandle) {
    var ends: [Int32] = [-1, -1]
    guard cfs_pipe_cloexec(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return (
      FileHandle(fileDescriptor: ends[0], closeOnDealloc: true),
      FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
    )
  }

  /// Starts `arguments[0]` (looked up in `PATH` when it has no slash) in a process group of its own.
  /// - Parameters:
  ///   - arguments: The command and its arguments.
  ///   - environment: Extra variables on top of this process's environment.
  ///   - stdio: The descriptors that become the child's 0, 1 and 2; a negative one means /dev/null.
  ///     The child gets no other descriptor of this process.
  ///   - unblockSignals: Start with no signal blocked, instead of the calling thread's mask.
  /// - Returns: The child's process id, to pass to ``wait(_:)`` once.
  /// - Throws: `POSIXError` when the child cannot be started.
  public static func spawn(
    _ arguments: [String], environment: [String: String] = [:], stdio: [Int32], unblockSignals: Bool = false
  ) throws -> pid_t {
    precondition(!arguments.isEmpty && stdio.count == 3)
    let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = variables.map { strdup($0) } + [nil]
    defer { for string in argv + envp { free(string) } }
    var pid: pid_t = 0
    let error = cfs_spawn(&pid, arguments[0], argv, envp, stdio, unblockSignals ? 1 : 0)
    guard error == 0 else { throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO) }
    return pid
  }

  /// Waits for a child started by ``spawn(_:environment:stdio:unblockSignals:)`` and reaps it.
  /// - Parameter pid: The child.
  /// - Returns: Its exit status, or 128 + the number of the signal that killed it.
  public static func wait(_ pid: pid_t) -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }
}
