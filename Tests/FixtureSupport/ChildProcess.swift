import CFixtureSupport
import Foundation

/// Starting and reaping the tests' child processes without Foundation's `Process`, so that a child
/// holds its three standard descriptors and nothing else of the test process (see
/// `Tests/CFixtureSupport/spawn.c` for why `Process` cannot promise that while tests run in parallel).
/// Every child the tests start goes through here (`TestHygieneTests` checks that no test uses
/// `Process`).
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

  /// Starts `arguments[0]` (looked up in `PATH` when it has no slash) in a process group of its own,
  /// with no signal blocked and every signal at its default action (as a shell starts a command).
  /// - Parameters:
  ///   - arguments: The command and its arguments.
  ///   - environment: Extra variables on top of this process's environment.
  ///   - stdio: The descriptors that become the child's 0, 1 and 2; a negative one means /dev/null.
  ///     The child gets no other descriptor of this process.
  /// - Returns: The child's process id, to pass to ``wait(_:)`` once.
  /// - Throws: `POSIXError` when the child cannot be started.
  public static func spawn(_ arguments: [String], environment: [String: String] = [:], stdio: [Int32]) throws -> pid_t {
    precondition(!arguments.isEmpty && stdio.count == 3)
    let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }.map { "\($0)=\($1)" }
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = variables.map { strdup($0) } + [nil]
    defer { for string in argv + envp { free(string) } }
    var pid: pid_t = 0
    let error = cfs_spawn(&pid, arguments[0], argv, envp, stdio)
    guard error == 0 else { throw POSIXError(POSIXErrorCode(rawValue: error) ?? .EIO) }
    return pid
  }

  /// Waits for a child started by ``spawn(_:environment:stdio:)`` and reaps it.
  /// - Parameter pid: The child.
  /// - Returns: Its exit status, or 128 + the number of the signal that killed it.
  public static func wait(_ pid: pid_t) -> Int32 { Termination(waiting: pid, options: 0)?.code ?? 128 + SIGKILL }

  /// How a child ended.
  public enum Termination: Equatable, Sendable, CustomStringConvertible {
    /// It exited with this status.
    case exit(Int32)
    /// A signal killed it.
    case signal(Int32)

    /// Reaps `pid` (`waitpid` with `options`): nil while it runs (with `WNOHANG`) or when it cannot
    /// be waited for.
    init?(waiting pid: pid_t, options: Int32) {
      var status: Int32 = 0
      var result: pid_t
      repeat { result = waitpid(pid, &status, options) } while result == -1 && errno == EINTR
      guard result == pid else { return nil }
      let signal = status & 0x7f
      self = signal == 0 ? .exit((status >> 8) & 0xff) : .signal(signal)
    }

    /// The shell's number for it: the exit status, or 128 + the signal.
    public var code: Int32 {
      switch self {
      case .exit(let status): status
      case .signal(let signal): 128 + signal
      }
    }

    public var description: String {
      switch self {
      case .exit(let status): "exit \(status)"
      case .signal(let signal): "signal \(signal)"
      }
    }
  }

  /// A child a test watches while it runs (signals it, polls it), reaped exactly once. If the test
  /// lets go of it while it runs, it and its process group are killed (`SIGKILL`) and reaped.
  public final class Running: @unchecked Sendable {
    /// The child's process id; its process group has the same id.
    public let pid: pid_t
    private let lock = NSLock()
    private var ended: Termination?

    /// Starts a child; see ``ChildProcess/spawn(_:environment:stdio:)``.
    /// - Parameters:
    ///   - arguments: The command and its arguments.
    ///   - environment: Extra variables on top of this process's environment.
    ///   - stdio: The child's 0, 1 and 2; a negative one means /dev/null.
    /// - Throws: `POSIXError` when the child cannot be started.
    public init(_ arguments: [String], environment: [String: String] = [:], stdio: [Int32] = [-1, -1, -1]) throws {
      pid = try ChildProcess.spawn(arguments, environment: environment, stdio: stdio)
    }

    deinit {
      if ended == nil {
        kill(-pid, SIGKILL)
        _ = Termination(waiting: pid, options: 0)
      }
    }

    /// How it ended, reaping it if it just did; nil while it runs.
    public var termination: Termination? {
      lock.withLock {
        if ended == nil { ended = Termination(waiting: pid, options: WNOHANG) }
        return ended
      }
    }

    /// Whether it is still running.
    public var isRunning: Bool { termination == nil }

    /// Sends `signal` to the child (not its group), unless it has been reaped.
    public func send(_ signal: Int32) {
      lock.withLock { if ended == nil { kill(pid, signal) } }
    }

    /// Waits for it to end, polling; after `limit` its process group is killed (`SIGKILL`), so a
    /// child that hangs fails the test instead of holding the run.
    /// - Parameter limit: The hang guard.
    /// - Returns: How it ended (`.signal(SIGKILL)` when the guard struck).
    @discardableResult
    public func waitUntilExit(limit: Duration = .seconds(300)) -> Termination {
      let deadline = ContinuousClock.now + limit
      while ContinuousClock.now < deadline {
        if let termination { return termination }
        usleep(5_000)
      }
      lock.withLock {
        if ended == nil {
          kill(-pid, SIGKILL)
          ended = Termination(waiting: pid, options: 0)
        }
      }
      return termination ?? .signal(SIGKILL)
    }
  }
}
