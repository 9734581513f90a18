import Dispatch
import ImgfetchCLI

#if canImport(Glibc)
  import Glibc
#endif

/// The entry point of `imgfetch-fetch`: the commands that need the network or the cache; anything
/// else runs as in `imgfetch`, so the executable can also be called directly.
public enum NetworkCommands {
  /// Runs a parsed command line and exits with its code.
  ///
  /// Everything that can runs synchronously on the calling (main) thread, before any task or
  /// thread exists: usage checks, `cache`, local commands, and a fetch's warm hit (``WarmHit``).
  /// Only a fetch with more to do continues in a task, while the main thread serves the main queue.
  /// - Parameter invocation: The command line.
  public static func main(_ invocation: Invocation) -> Never {
    let code: ExitCode
    do throws(UsageError) {
      switch invocation.command {
      case .cache: code = try CacheCommand.run(invocation)
      case .fetch where invocation.needsNetwork:
        switch try FetchCommand.prepare(invocation) {
        case .done(let done): code = done
        case .more(let command): command.run()
        }
      default: code = Imgfetch.runLocal(invocation)
      }
    } catch {
      Imgfetch.printUsageError(error)
      code = .usage
    }
    exit(code.rawValue)
  }
}
