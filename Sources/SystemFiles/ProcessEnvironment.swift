#if canImport(Glibc)
  import Glibc
#endif

/// The process as a whole: its environment, its processors, how it treats broken pipes, and its end.
public enum ProcessEnvironment {
  /// An environment variable's value (`getenv`), or nil when it is unset.
  /// - Parameter name: The variable.
  /// - Returns: Its value.
  public static func variable(_ name: String) -> String? {
    getenv(name).map { String(cString: $0) }
  }

  /// The processors online now (`sysconf(_SC_NPROCESSORS_ONLN)`), at least one.
  public static var onlineProcessors: Int { max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

  /// Makes a write to a closed pipe an ordinary `EPIPE` error instead of a fatal `SIGPIPE`.
  public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }

  /// Ends the process with `status`, running the exit handlers (`exit`).
  /// - Parameter status: The exit status.
  public static func exit(_ status: Int32) -> Never { Glibc.exit(status) }
}
