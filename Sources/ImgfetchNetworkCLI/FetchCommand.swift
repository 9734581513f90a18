import Foundation
import ImageCodecs
import ImageFetch
import ImgfetchCLI
import ParseFetch
import Synchronization
import SystemFiles

/// `imgfetch [options] SOURCE...` and `imgfetch --class C --column COL` when a source needs the
/// network: makes sure each source is downloaded, validated and cached (local files among them are
/// validated in place), optionally thumbnailed, and prints where the files are. Runs `--jobs` items
/// at once with one decode in flight per job.
enum FetchCommand {
  static func run(_ invocation: Invocation) async throws(UsageError) -> ExitCode {
    let settings = try FetchSettings(invocation, environment: ProcessInfo.processInfo.environment)
    let fetcher: ImageFetcher
    // A cache directory that cannot be made is a local file-system failure: its path and the
    // system's reason, exit 5.
    let directory = settings.cacheDirectory ?? DiskCache.defaultDirectory()
    do { try Directory.create(directory) } catch {
      Console.error("cannot use the cache directory: \(error)")
      return .fileSystem
    }
    do {
      let cache = try DiskCache(directory: settings.cacheDirectory)
      fetcher = try ImageFetcher(
        configuration: settings.parse, cache: cache, downloader: Downloader(options: settings.downloader),
        decodeOptions: DecodeOptions(limits: settings.decodeLimits), maxConcurrentDecodes: settings.jobs)
    } catch {
      let (kind, message) = BatchRun.describe(error)
      Console.error(message)
      return kind.exitCode
    }
    let batch = BatchRun(settings: settings, fetcher: fetcher)
    // The handler is in place before any work starts; it cancels the task once there is one.
    let running = Mutex<Task<ExitCode, Never>?>(nil)
    let cancelled = Atomic(false)
    let interrupts = InterruptHandler {
      cancelled.store(true, ordering: .relaxed)
      running.withLock { $0?.cancel() }
      batch.reporter.progress.finish()
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
