import ImgfetchVersion
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// The `imgfetch` command line: parses the arguments against the one option table, runs the
/// commands that need no network here, and hands the others to the network executable.
public enum Imgfetch {
  /// The version, printed by `--version` and sent in the User-Agent of every request.
  public static let version = ImgfetchVersion.number

  /// The executable that runs network and cache commands, installed beside `imgfetch`.
  public static let networkExecutableName = "imgfetch-fetch"

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
      case .cache: throw UsageError("cache needs \(networkExecutableName)")
      }
    } catch {
      printUsageError(error)
      return .usage
    }
  }

  /// Replaces this process with the network executable found beside the running one, with the same
  /// arguments. Returns only when that fails (after printing why).
  /// - Returns: ``ExitCode/fileSystem``.
  public static func execNetworkExecutable() -> ExitCode {
    let sibling = networkExecutablePath()
    execv(sibling, CommandLine.unsafeArgv)
    let reason = SystemError.message(forCode: errno)
    Console.error("this command runs \(sibling), which cannot be started: \(reason) (reinstall with scripts/install)")
    return .fileSystem
  }

  /// The network executable's path: beside the running one.
  public static func networkExecutablePath() -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    var directory = "."
    if length > 0 {
      let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if let slash = path.lastIndex(of: "/") { directory = String(path[..<slash]) }
    }
    return directory + "/" + networkExecutableName
  }
}
