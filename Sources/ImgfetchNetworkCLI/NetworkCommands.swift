import ImgfetchCLI

/// The entry point of `imgfetch-fetch`: the commands that need the network or the cache; anything
/// else runs as in `imgfetch`, so the executable can also be called directly.
public enum NetworkCommands {
  /// Runs a parsed command line.
  /// - Parameter invocation: The command line.
  /// - Returns: The exit code.
  public static func run(_ invocation: Invocation) async -> ExitCode {
    do throws(UsageError) {
      switch invocation.command {
      case .cache: return try CacheCommand.run(invocation)
      case .fetch where invocation.needsNetwork: return try await FetchCommand.run(invocation)
      default: return Imgfetch.runLocal(invocation)
      }
    } catch {
      Imgfetch.printUsageError(error)
      return .usage
    }
  }
}
