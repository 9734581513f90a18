import Foundation
import ImageCodecs
import ImageFetch
import ParseFetch
import Synchronization
import Thumbnails

/// One run of the fetch command: feeds the sources to `jobs` workers, prints each outcome as it
/// finishes, and works out the exit code.
final class BatchRun: Sendable {
  let settings: FetchSettings
  let fetcher: ImageFetcher
  let reporter: ProgressReporter
  private let tally = Mutex((done: 0, failed: 0, lastFailure: FetchOutcome.FailureKind?.none))

  init(settings: FetchSettings, fetcher: ImageFetcher) {
    self.settings = settings
    self.fetcher = fetcher
    let mode = settings.quiet ? ProgressMode.never : settings.progress
    let total = settings.className == nil ? settings.sources.count : nil
    reporter = ProgressReporter(mode: mode, terminal: Terminal.current(), total: total)
  }

  /// Fetches everything and returns the exit code.
  func run() async -> ExitCode {
    var listingFailed = false
    await withTaskGroup(of: FetchOutcome.self) { group in
      var inFlight = 0
      func add(_ source: FetchSource, slicedByServer: Bool = false) async {
        if let shard = settings.shard, !slicedByServer, !shard.contains(source.shardKey) { return }
        if inFlight >= settings.jobs, let outcome = await group.next() {
          report(outcome)
          inFlight -= 1
        }
        group.addTask { await self.fetch(source) }
        inFlight += 1
      }
      if let className = settings.className, let client = fetcher.client {
        // --shard in range mode: the server sends only this shard's objectId slice.
        let slice = settings.shard.flatMap { $0.slicesOnServer ? ObjectIDRange(shard: $0.index, of: $0.count) : nil }
        let pages = client.objectFiles(
          in: className, column: settings.column!, where: settings.whereJSON, range: slice)
        // The walk's own count: the same constraint, so the total is what the walk yields.
        if reporter.isDrawing, settings.shard == nil || slice != nil, let total = try? await pages.count() {
          reporter.setTotal(total)
        }
        do {
          for try await page in pages {
            for item in page { await add(.objectFile(item.object, item.file), slicedByServer: slice != nil) }
            if Task.isCancelled { break }
          }
        } catch {
          if !Task.isCancelled {
            reporter.print("\(className): cannot list objects: \(error)", toError: true)
            listingFailed = true
          }
        }
      } else {
        for source in settings.sources where !Task.isCancelled { await add(source) }
      }
      for await outcome in group { report(outcome) }
    }
    reporter.finish()
    let (done, failed, last) = tally.withLock { ($0.done, $0.failed, $0.lastFailure) }
    if !settings.quiet && !settings.json && (failed > 0 || listingFailed) && done > 1 {
      Console.error("\(failed) of \(done) items failed")
    }
    if listingFailed { return .networkError }
    if failed == 0 { return .success }
    let isBatch = settings.className != nil || done > 1
    if isBatch { return .someItemsFailed }
    return last == .invalidImage ? .invalidImage : .networkError
  }

  private func report(_ outcome: FetchOutcome) {
    if outcome.failure?.kind == .cancelled || (outcome.failure != nil && Task.isCancelled) { return }
    tally.withLock { tally in
      tally.done += 1
      if let failure = outcome.failure {
        tally.failed += 1
        tally.lastFailure = failure.kind
      }
    }
    if let failure = outcome.failure {
      let label = outcome.source.label
      reporter.print(failure.message.hasPrefix(label) ? failure.message : "\(label): \(failure.message)", toError: true)
      if settings.json { reporter.print(jsonLine(outcome.jsonFields)) }
    } else if settings.json {
      reporter.print(jsonLine(outcome.jsonFields))
    } else if !settings.quiet {
      reporter.print(outcome.line)
    }
    reporter.finished(outcome.source.label, bytes: outcome.bytes, failed: outcome.failure != nil)
  }

  /// Fetches (or validates) one source and makes its thumbnail when asked.
  func fetch(_ source: FetchSource) async -> FetchOutcome {
    var outcome = FetchOutcome(source: source)
    let label = source.label
    let progress: ProgressHandler = { [reporter] update in
      reporter.transfer(label, received: update.bytesReceived, expected: update.bytesExpected)
    }
    do {
      let path: String
      let thumbnails = settings.thumbnail
      switch source {
      case .local(let file):
        var image = Image(width: 1, height: 1, pixelFormat: .gray8)
        try ImageDecoder.decode(contentsOf: file, options: DecodeOptions(limits: settings.decodeLimits), into: &image)
        path = file
      case .url(let url):
        if let thumbnails {
          path = try await record(fetcher.thumbnail(at: url, options: thumbnails, progress: progress), into: &outcome)
        } else {
          path = try await record(fetcher.cachedFile(at: url, progress: progress), into: &outcome)
        }
      case .object(let reference):
        if let thumbnails {
          path = try await record(
            fetcher.thumbnail(of: reference, column: settings.column!, options: thumbnails, progress: progress),
            into: &outcome)
        } else {
          path = try await record(
            fetcher.cachedFile(of: reference, column: settings.column!, progress: progress), into: &outcome)
        }
      case .objectFile(_, let file):
        if let thumbnails {
          path = try await record(
            fetcher.thumbnail(for: file.get(), options: thumbnails, progress: progress), into: &outcome)
        } else {
          path = try await record(fetcher.cachedFile(for: file.get(), progress: progress), into: &outcome)
        }
      }
      outcome.cachePath = path
      let header = try ImageDecoder.probe(contentsOf: path, limits: settings.decodeLimits)
      (outcome.width, outcome.height, outcome.format) = (header.width, header.height, header.format.rawValue)
      if outcome.bytes == 0 { outcome.bytes = Int64(InfoCommand.fileSize(path) ?? 0) }
      if let options = thumbnails, outcome.thumbnail == nil {
        outcome.thumbnail = try Thumbnailer(options: options).makeThumbnail(forFileAt: path)
      }
    } catch {
      outcome.failure = Task.isCancelled ? (.cancelled, "cancelled") : BatchRun.describe(error)
    }
    return outcome
  }

  private func record(_ result: FetchedThumbnail, into outcome: inout FetchOutcome) -> String {
    outcome.thumbnail = result.thumbnail
    return record(result.original, into: &outcome)
  }

  private func record(_ file: FetchedFile<ValidatedImage>, into outcome: inout FetchOutcome) -> String {
    outcome.cacheHit = file.isCacheHit
    outcome.bytes = file.byteCount
    return file.url.path
  }

  /// The one-line message and the exit-code class of an item's error.
  static func describe(_ error: any Error) -> (kind: FetchOutcome.FailureKind, message: String) {
    switch error {
    case let error as DecodeError: return (.invalidImage, error.description)
    case let error as ThumbnailError: return (.invalidImage, "\(error)")
    case let error as ImageFetchError:
      if case .cancelled = error { return (.cancelled, "cancelled") }
      if case .thumbnail = error { return (.invalidImage, error.description) }
      return (error.isInvalidImage ? .invalidImage : .network, error.description)
    case let error as ParseError: return (.network, "\(error)")
    case is CancellationError: return (.cancelled, "cancelled")
    default: return (.network, "\(error)")
    }
  }
}
