import Foundation
import ImageCodecs
import ImageFetch
import ParseFetch
import Synchronization
import Thumbnails

/// `imgfetch [options] SOURCE...` and `imgfetch --class C --column COL`: makes sure each source is
/// downloaded, validated and cached (local files are validated in place), optionally thumbnailed,
/// and prints where the files are. Runs `--jobs` items at once with one decode in flight per job.
enum FetchCommand {
  /// Whether the arguments name anything this command fetches (a URL, `Class/objectId`, `--class`).
  static func handles(_ arguments: [String]) -> Bool {
    if arguments.contains(where: { $0 == "--class" || $0.hasPrefix("--class=") }) { return true }
    guard let parsed = try? parseArguments(arguments, specs: FetchSettings.specs) else { return false }
    return parsed.positionals.contains {
      switch FetchSource(argument: $0) {
      case .local: false
      default: true
      }
    }
  }

  static func run(_ arguments: [String]) async throws(UsageError) -> ExitCode {
    let parsed = try parseArguments(arguments, specs: FetchSettings.specs)
    let settings = try FetchSettings(parsed, environment: ProcessInfo.processInfo.environment)
    let fetcher: ImageFetcher
    do {
      let cache = try DiskCache(directory: settings.cacheDirectory)
      fetcher = try ImageFetcher(
        configuration: settings.parse, cache: cache, downloader: Downloader(options: settings.downloader),
        decodeOptions: DecodeOptions(limits: settings.decodeLimits), maxConcurrentDecodes: settings.jobs)
    } catch {
      Console.error("\(error)")
      return .networkError
    }
    let batch = BatchRun(settings: settings, fetcher: fetcher)
    // The handler is in place before any work starts; it cancels the task once there is one.
    let running = Mutex<Task<ExitCode, Never>?>(nil)
    let cancelled = Atomic(false)
    let interrupts = InterruptHandler {
      cancelled.store(true, ordering: .relaxed)
      running.withLock { $0?.cancel() }
      batch.reporter.finish()
    }
    let task = Task { await batch.run() }
    running.withLock { $0 = task }
    if cancelled.load(ordering: .relaxed) { task.cancel() }
    let code = await task.value
    withExtendedLifetime(interrupts) {}
    guard !task.isCancelled else {
      Console.error("interrupted")
      return .interrupted
    }
    return code
  }
}
