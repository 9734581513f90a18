import ImgfetchVersion
import SystemFiles

/// The `imgfetch` command line: parses the arguments against the one option table and runs the
/// command. One executable does every command; those that need no network (help, version, info,
/// decode, verify, local files) never load libcurl, which the first request loads (ParseFetch).
public enum Imgfetch {
  /// The version, printed by `--version` and sent in the User-Agent of every request.
  public static let version = ImgfetchVersion.number

  /// Parses the command line; a usage error is printed as one line.
  /// - Parameter arguments: The arguments after the program name.
  /// - Returns: The invocation, or `nil` after printing the usage error.
  public static func parse(_ arguments: [String]) -> Invocation? {
    do {
      return try Invocation(arguments)
    } catch {
      printUsageError(error)
      return nil
    }
  }

  /// Prints a usage error as one line on standard error.
  /// - Parameter error: The error.
  public static func printUsageError(_ error: UsageError) {
    Console.error("\(error.message) (see imgfetch --help)")
  }

  /// Runs a parsed command line and exits with its code.
  ///
  /// Everything but a fetch that needs the network runs synchronously on the calling (main) thread;
  /// such a fetch goes on in a task while the main thread serves the main queue (``FetchCommand``).
  /// - Parameter invocation: The command line.
  public static func run(_ invocation: Invocation) -> Never {
    let code: ExitCode
    do throws(UsageError) {
      switch invocation.command {
      case .cache: code = try CacheCommand.run(invocation)
      case .fetch where invocation.parsed.has("dry-run"): code = Console.exitCode(try DryRun.run(invocation))
      case .fetch where invocation.needsNetwork: try FetchCommand(invocation).run()
      default: code = runLocal(invocation)
      }
    } catch {
      printUsageError(error)
      code = .usage
    }
    ProcessEnvironment.exit(Console.exitCode(code).rawValue)
  }

  /// Runs a command that needs no network: help, version, info, decode, verify and local files.
  /// - Parameter invocation: The parsed command line (``Invocation/needsNetwork`` is false).
  /// - Returns: The exit code.
  public static func runLocal(_ invocation: Invocation) -> ExitCode {
    do throws(UsageError) {
      switch invocation.command {
      case .help:
        Console.out(HelpText.text)
        return Console.exitCode(.success)
      case .version:
        Console.out("imgfetch \(version)")
        return Console.exitCode(.success)
      case .info: return Console.exitCode(InfoCommand.run(invocation))
      case .decode: return try DecodeCommand.run(invocation)
      case .verify: return Console.exitCode(VerifyCommand.run(invocation))
      case .fetch: return LocalBatch.run(invocation)
      case .cache: return try CacheCommand.run(invocation)
      }
    } catch {
      printUsageError(error)
      return .usage
    }
  }
}
