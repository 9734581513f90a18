import CRestRequest
import Foundation
import ImageCodecs
import ImageFetch
import ImgfetchCLI
import ImgfetchHit
import ParseFetch
import Synchronization
import SystemFiles

/// `imgfetch [options] SOURCE...` and `imgfetch --class C --column COL` when a source needs the
/// network: makes sure each source is downloaded, validated and cached (local files among them are
/// validated in place), optionally thumbnailed, and prints where the files are. Runs `--jobs` items
/// at once with one decode in flight per job.
///
/// It starts synchronously on the main thread (``prepare(_:)``: the settings, then the warm hit,
/// before any task or thread exists) and goes on in tasks only when there is more to do (``run()``).
struct FetchCommand: Sendable {
  /// The checked settings (with the warm hit's resolved file, when it found one).
  var settings: FetchSettings
  /// Prints the outcomes.
  let reporter: ItemReporter
  /// The stored name of a single object's file, when the warm hit's request resolved it (its
  /// hint is recorded once the file is fetched).
  var resolvedFileName: String?
  /// The download side, when it was made before the hand-off (``NetworkCommands/prepareBeforeHandoff(arguments:)``).
  var downloadSide: DownloadSide?

  /// Set once, on the main thread before the hand-off and before any thread of the process starts.
  nonisolated(unsafe) static var madeBeforeHandoff: DownloadSide?

  /// Whether the command fetches one source into a cache that holds no entry at all (a directory
  /// that does not exist yet or is empty: a first run, or the cold benchmark): nothing can be a hit.
  /// - Parameter settings: The command's checked settings.
  /// - Returns: True when every source is a miss for sure.
  static func missesForSure(_ settings: FetchSettings) -> Bool {
    guard settings.className == nil, settings.sources.count == 1 else { return false }
    return holdsNoEntry(settings.cacheDirectory ?? DiskCache.defaultDirectory())
  }

  /// Whether a cache directory is missing or holds no entry (only its tag, locks, partial downloads
  /// or temporary files). It stops at the first entry, so a full cache costs one directory read.
  /// - Parameter directory: The cache directory.
  /// - Returns: True when no file in it can be a hit; false also when it cannot be read.
  static func holdsNoEntry(_ directory: String) -> Bool {
    guard FileStatus.of(directory) != nil else { return true }
    guard let stream = opendir(directory) else { return false }
    defer { closedir(stream) }
    while let item = readdir(stream) {
      let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name != ".", name != "..", CacheFile(fileName: name) == .entry { return false }
    }
    return true
  }

  /// What ``prepare(_:)`` leaves to do.
  enum Prepared: Sendable {
    /// The command is done: a hit was served, or a signal came.
    case done(ExitCode)
    /// The rest of the command.
    case more(FetchCommand)
  }

  /// Checks the settings and tries the warm hit, unless `imgfetch` tried it and handed on what it
  /// found (``ImgfetchHit/HitHandoff``).
  /// - Returns: The exit code when the command is done (a hit served, or interrupted), else the
  ///   rest of the command.
  /// - Throws: ``UsageError`` before any request.
  static func prepare(_ invocation: Invocation) throws(UsageError) -> Prepared {
    let environment = ProcessInfo.processInfo.environment
    let settings = try FetchSettings(invocation, environment: environment)
    var command = FetchCommand(settings: settings, reporter: BatchRun.reporter(for: settings))
    command.downloadSide = madeBeforeHandoff
    // Ctrl-C during the hit's request: the C handlers cancel it (no thread is needed for them).
    _ = rest_install_interrupt_handlers()
    switch HitHandoff.receive() {
    case .resolved(let file)?:
      if let resolved = settings.resolvedSource(file) {
        command.settings.sources = [resolved]
        command.resolvedFileName = file.fileName
        return .more(command)
      }
    case .requested?: return .more(command)
    case .untried?, nil: break
    }
    switch WarmHit.attempt(invocation, environment: { environment[$0] }, reporter: command.reporter) {
    case .served(let code, let fileName):
      // The next hit of this object is served by `imgfetch` alone.
      WarmHit.recordHint(invocation, environment: { environment[$0] }, fileName: fileName)
      return .done(rest_was_interrupted() != 0 ? WarmHit.interrupted() : code)
    case .interrupted: return .done(WarmHit.interrupted())
    case .resolved(let file):
      if let resolved = settings.resolvedSource(file) {
        command.settings.sources = [resolved]
        command.resolvedFileName = file.fileName
      }
    case .notTaken: break
    }
    return .more(command)
  }

  /// Runs the command past the warm hit in a task, and exits with its code.
  ///
  /// The task's thread (the first of Swift's cooperative pool) takes about a millisecond to start;
  /// meanwhile the main thread opens the cache and makes the fetcher (the cache directory, the URL
  /// session: another millisecond or two), and hands them to the task, so a miss's file request
  /// goes out that much sooner (unless they were made before the hand-off already:
  /// ``NetworkCommands/prepareBeforeHandoff(arguments:)``). The main thread then serves the main queue.
  func run() -> Never {
    let downloadSide = self.downloadSide ?? DownloadSide()
    Task.detached { exit(await finish(downloadSide).rawValue) }
    if self.downloadSide == nil { downloadSide.make(settings) }
    dispatchMain()
  }

  /// Fetches every source with the download side the main thread made.
  /// - Returns: The exit code.
  func finish(_ downloadSide: DownloadSide) async -> ExitCode {
    // The handler is in place before the first task; it cancels whatever runs when the signal comes.
    let running = Locked<Task<ExitCode, Never>?>(nil)
    let cancelled = Atomic(false)
    let interrupts = InterruptHandler { [reporter] in
      cancelled.store(true, ordering: .relaxed)
      running.withLock { $0?.cancel() }
      reporter.progress.finish()
    }
    defer { withExtendedLifetime(interrupts) {} }
    if rest_was_interrupted() != 0 { return WarmHit.interrupted() }
    let fetcher: ImageFetcher
    switch await downloadSide.value {
    case .success(let made): fetcher = made
    case .failure(let failure):
      Console.error(failure.message)
      return failure.exitCode
    }
    let batch = BatchRun(settings: settings, fetcher: fetcher, reporter: reporter)
    let task = Task { await batch.run() }
    running.withLock { $0 = task }
    if cancelled.load(ordering: .relaxed) { task.cancel() }
    let code = await task.value
    guard !task.isCancelled else { return WarmHit.interrupted() }
    if code == .success, let name = resolvedFileName {
      let environment = ProcessInfo.processInfo.environment
      WarmHit.recordHint(settings.invocation, environment: { environment[$0] }, fileName: name)
    }
    return code
  }
}
