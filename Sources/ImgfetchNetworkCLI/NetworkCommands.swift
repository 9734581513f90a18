import CProcessSettings
import Dispatch
import Foundation
import ImgfetchCLI
import ImgfetchHit
import ParseFetch
import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// The entry point of `imgfetch-fetch`: the commands that need the network or the cache; anything
/// else runs as in `imgfetch`, so the executable can also be called directly.
public enum NetworkCommands {
  /// In the process `imgfetch` starts beside a single object's warm hit, before it waits for the
  /// hit's outcome (``ImgfetchHit/HitHandoff/adoptIfStarted()``): when the cache holds no entry at
  /// all (its directory does not exist yet, or is empty), nothing can be a hit, so the download side (the cache directory, the URL session,
  /// the fetcher) is made now, while `imgfetch` asks for the object, rather than after the
  /// hand-off. Otherwise nothing is done: a hit must not make a URL session (it writes under
  /// `$HOME`) nor start threads. Failures are kept for the command to report after the hand-off,
  /// when standard error is the caller's.
  /// - Parameter arguments: The arguments after the program name.
  public static func prepareBeforeHandoff(arguments: [String] = Array(CommandLine.arguments.dropFirst())) {
    // The companion's time during a hit is the hit's CPU too: a cache with an entry ends it here,
    // before the command line is parsed (the last `--cache-dir` wins, as in the parser).
    guard getenv(HitHandoff.variable) != nil else { return }
    var named: String?
    for (index, argument) in arguments.enumerated() {
      if argument == "--cache-dir", index + 1 < arguments.count { named = arguments[index + 1] }
      if argument.hasPrefix("--cache-dir=") { named = String(argument.dropFirst("--cache-dir=".count)) }
    }
    guard FetchCommand.holdsNoEntry(named ?? DiskCache.defaultDirectory()), let invocation = try? Invocation(arguments),
      invocation.command == .fetch, invocation.needsNetwork,
      let settings = try? FetchSettings(invocation, environment: ProcessInfo.processInfo.environment),
      FetchCommand.missesForSure(settings)
    else { return }
    // As `Imgfetch.startProcess` does before any thread starts (the URL session starts some).
    _ = process_limit_malloc_arenas(2)
    let side = DownloadSide()
    side.make(settings)
    FetchCommand.madeBeforeHandoff = side
  }

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
    exit(Console.exitCode(code).rawValue)
  }
}
