/// The `imgfetch` command line: parses the subcommand, runs it, and maps the outcome to an exit code.
public enum Imgfetch {
  /// The version printed by `--version`.
  public static let version = "0.1.0"

  /// Runs the command line.
  /// - Parameter arguments: The arguments after the program name.
  /// - Returns: The process exit code (see ``ExitCode``).
  public static func run(_ arguments: [String]) async -> Int32 {
    do {
      return try await dispatch(arguments).rawValue
    } catch {
      Console.error("\(error.message) (see imgfetch --help)")
      return ExitCode.usage.rawValue
    }
  }

  /// Unblocks Ctrl-C and SIGTERM (a parent may have blocked them); call first thing in `main`,
  /// before any thread starts, so every thread inherits the unblocked mask.
  public static func unblockInterrupts() { InterruptHandler.unblock() }

  static func dispatch(_ arguments: [String]) async throws(UsageError) -> ExitCode {
    guard let first = arguments.first else { throw UsageError("nothing to do") }
    let rest = Array(arguments.dropFirst())
    switch first {
    case "--help", "-h", "help":
      Console.out(HelpText.text)
      return .success
    case "--version":
      Console.out("imgfetch \(version)")
      return .success
    case "info": return try InfoCommand.run(rest)
    case "decode": return try DecodeCommand.run(rest)
    case "verify": return try VerifyCommand.run(rest)
    case "cache": return try CacheCommand.run(rest)
    default:
      if FetchCommand.handles(arguments) { return try await FetchCommand.run(arguments) }
      if ThumbnailCommand.handles(arguments) { return try ThumbnailCommand.run(arguments) }
      throw UsageError("unknown command \(first)")
    }
  }
}
