import Dispatch
import ImageCodecs
import ImageFetch
import ParseFetch
import Synchronization
import SystemFiles

/// `imgfetch [options] SOURCE...` and `imgfetch --class C --column COL` when a source needs the
/// network: makes sure each source is downloaded, validated and cached (local files among them are
/// validated in place), optionally thumbnailed, and prints where the files are. Runs `--jobs` items
/// at once with one decode in flight per job.
///
/// A single Parse object whose file is cached (the warm hit) takes the same path as any fetch: one
/// object request, the cache lookup, the thumbnail's stamp, the line; no file request.
struct FetchCommand: Sendable {
  /// The checked settings.
  let settings: FetchSettings
  /// Prints the outcomes.
  let reporter: ItemReporter

  /// Checks the settings, before any request.
  /// - Parameter invocation: The parsed command line.
  /// - Throws: ``UsageError``.
  init(_ invocation: Invocation) throws(UsageError) {
    settings = try FetchSettings(invocation, environment: ProcessEnvironment.variable)
    reporter = BatchRun.reporter(for: settings)
  }

  /// Runs the command in a task and exits with its code; the main thread serves the main queue.
  ///
  /// SIGINT and SIGTERM (the process's one ``SystemFiles/InterruptHandler``, in place before the
  /// first request) cancel the task: transfers stop, nothing partial enters the cache, `.part`
  /// files stay for a resume, and the run exits 130 after one line.
  func run() -> Never {
    let cancelled = Atomic(false)
    let running = Locked<Task<Void, Never>?>(nil)
    let interrupts = InterruptHandler(secondSignalStatus: ExitCode.interrupted.rawValue) { [reporter] in
      cancelled.store(true, ordering: .relaxed)
      running.withLock { $0 }?.cancel()
      reporter.progress.finish()
    }
    // libcurl loads (a few milliseconds) while the cache opens and the task starts.
    HTTPClient.warmUp()
    let task = Task.detached { [self] in
      var code = await fetch()
      if Task.isCancelled || cancelled.load(ordering: .relaxed) {
        reporter.progress.finish()
        Console.error("interrupted")
        code = .interrupted
      }
      HTTPClient.finishWarmUp()  // no exit while libcurl loads on another thread
      ProcessEnvironment.exit(Console.exitCode(code).rawValue)
    }
    running.withLock { $0 = task }
    if cancelled.load(ordering: .relaxed) { task.cancel() }
    withExtendedLifetime(interrupts) { dispatchMain() }
  }

  /// Fetches every source.
  /// - Returns: The exit code.
  func fetch() async -> ExitCode {
    let fetcher: ImageFetcher
    // A cache directory that cannot be made is a local file-system failure: its path and the
    // system's reason, exit 5.
    do throws(SystemError) {
      try Directory.create(settings.cacheDirectory ?? DiskCache.defaultDirectory())
    } catch {
      Console.error("cannot use the cache directory: \(error)")
      return .fileSystem
    }
    if let output = settings.thumbnail?.outputDirectory?.path, !LocalOperands.createOutputDirectory(output) {
      return .fileSystem
    }
    do {
      let cache = try DiskCache(directory: settings.cacheDirectory, byteLimit: settings.cacheMaxSize)
      fetcher = try ImageFetcher(
        configuration: settings.parse, cache: cache, downloader: Downloader(options: settings.downloader),
        decodeOptions: DecodeOptions(limits: settings.decodeLimits), maxConcurrentDecodes: settings.jobs)
    } catch {
      let (kind, message) = BatchRun.describe(error)
      Console.error(message)
      return kind.exitCode
    }
    return await BatchRun(settings: settings, fetcher: fetcher, reporter: reporter).run()
  }
}
