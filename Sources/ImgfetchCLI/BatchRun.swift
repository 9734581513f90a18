import FoundationEssentials
import ImageCodecs
import ImageFetch
import ParseFetch
import Thumbnails

/// One run of the fetch command: feeds the sources to `jobs` workers, prints each outcome as it
/// finishes (through the same ``ItemReporter`` as local files), and works out the exit code.
final class BatchRun: Sendable {
  let settings: FetchSettings
  let fetcher: ImageFetcher
  let reporter: ItemReporter
  /// Where local files are decoded and thumbnails of hits made, off the cooperative pool, `--jobs`
  /// at a time (the fetcher's own decodes have their slots).
  let localWork: CPUWork
  /// The objects of a class walk whose column holds no file, reported once at the end.
  let columnProblems = ColumnProblems()

  init(settings: FetchSettings, fetcher: ImageFetcher, reporter: ItemReporter) {
    self.settings = settings
    self.fetcher = fetcher
    self.reporter = reporter
    localWork = CPUWork(width: settings.jobs)
  }

  /// The reporter of a run with these settings.
  static func reporter(for settings: FetchSettings) -> ItemReporter {
    ItemReporter(output: settings.invocation.output, total: settings.className == nil ? settings.sources.count : nil)
  }

  /// Fetches everything and returns the exit code.
  func run() async -> ExitCode {
    var listingFailed = false
    var listed = 0
    var walked = 0
    await withTaskGroup(of: ItemOutcome.self) { group in
      var inFlight = 0
      func add(_ source: FetchSource, slicedByServer: Bool = false) async {
        if let shard = settings.shard, !slicedByServer, !shard.contains(source.shardKey) { return }
        walked += 1
        // A column that holds no file: the same for many objects of a walk, so said once at the end
        // (the first objects named in walk order); the item fails without a task.
        if case .objectFile(_, .failure(let error)) = source, columnProblems.record(error) {
          var outcome = ItemOutcome(source: source.label, objectID: source.objectID)
          outcome.failure = BatchRun.describe(error)
          outcome.failureIsSummarised = true
          reporter.report(outcome)
          return
        }
        // Twice `jobs` items in flight: while `jobs` of them decode (the fetcher's decode slots),
        // the next ones download into their .part files.
        if inFlight >= 2 * settings.jobs, let outcome = await group.next() {
          reporter.report(outcome)
          inFlight -= 1
        }
        group.addTask { await self.fetch(source) }
        inFlight += 1
      }
      if let className = settings.className, let client = fetcher.client, let column = settings.column {
        // --shard in range mode: the server sends only this shard's objectId slice.
        let slice = settings.shard.flatMap { $0.slicesOnServer ? ObjectIDRange(shard: $0.index, of: $0.count) : nil }
        let pages = client.objectFiles(in: className, column: column, where: settings.whereJSON, range: slice)
        // The walk's own count: the same constraint, so the total is what the walk yields.
        if reporter.progress.isDrawing, settings.shard == nil || slice != nil, let total = try? await pages.count() {
          reporter.progress.setTotal(total)
        }
        do {
          for try await page in pages {
            for item in page {
              listed += 1
              await add(.objectFile(item.object, item.file), slicedByServer: slice != nil)
            }
            if Task.isCancelled { break }
          }
        } catch {
          if !Task.isCancelled {
            reporter.progress.print("\(className): cannot list objects: \(error)", toError: true)
            listingFailed = true
          }
        }
        if listed == 0 && !listingFailed && !Task.isCancelled {
          let filter = settings.whereJSON == nil ? "" : " matching --where"
          let part = settings.shard.map { " in shard \($0)" } ?? ""
          // Parse Server answers a class that does not exist with no objects, not an error.
          let hint =
            filter.isEmpty && part.isEmpty
            ? " (Parse says the same of a class that does not exist: check the name, which is case-sensitive)" : ""
          reporter.progress.print("\(className): no objects\(filter)\(part)\(hint)", toError: true)
        }
      } else {
        for source in settings.sources where !Task.isCancelled { await add(source) }
      }
      for await outcome in group { reporter.report(outcome) }
    }
    if let className = settings.className {
      for line in columnProblems.lines(className: className, objects: walked) {
        reporter.progress.print(line, toError: true)
      }
    }
    let code = reporter.finish(
      isBatch: settings.className != nil || settings.sources.count > 1 || settings.walkedFolder)
    return listingFailed ? .networkError : code
  }

  /// Fetches (or validates) one source and makes its thumbnail when asked.
  func fetch(_ source: FetchSource) async -> ItemOutcome {
    var outcome = ItemOutcome(source: source.label, objectID: source.objectID)
    if case .objectFile = source { outcome.lineStartsWithObjectID = true }
    let label = source.label
    let progress: ProgressHandler = { [reporter] update in
      reporter.progress.transfer(label, received: update.bytesReceived, expected: update.bytesExpected)
    }
    let path: String
    let sizes = settings.thumbnailSizes
    do {
      switch source {
      case .unreadableFolder(_, let message):
        outcome.failure = (.fileSystem, message)
        return outcome
      case .local(let file):
        let (thumbnail, limits, item) = (settings.thumbnail, settings.decodeLimits, outcome)
        return await localWork.run {
          var outcome = item
          LocalItem.examine(
            file, into: &outcome, thumbnail: thumbnail, limits: limits, alreadyValidated: false, sizes: sizes)
          return outcome
        }
      // With --thumbnail, the fetcher's one decode of a download validates it and makes the thumbnail.
      case .url(let url):
        if let thumbnails = settings.thumbnail {
          path = try await record(
            fetcher.thumbnail(at: url, options: thumbnails, sizes: sizes, progress: progress), into: &outcome)
        } else {
          path = try await record(fetcher.cachedFile(at: url, progress: progress), into: &outcome)
        }
      case .object(let reference):
        if let thumbnails = settings.thumbnail {
          path = try await record(
            fetcher.thumbnail(
              of: reference, column: settings.column!, options: thumbnails, sizes: sizes, progress: progress),
            into: &outcome)
        } else {
          path = try await record(
            fetcher.cachedFile(of: reference, column: settings.column!, progress: progress), into: &outcome)
        }
      case .objectFile(_, let file):
        if let thumbnails = settings.thumbnail {
          path = try await record(
            fetcher.thumbnail(for: file.get(), options: thumbnails, sizes: sizes, progress: progress),
            into: &outcome)
        } else {
          path = try await record(fetcher.cachedFile(for: file.get(), progress: progress), into: &outcome)
        }
      }
    } catch {
      outcome.failure = Task.isCancelled ? (.cancelled, "cancelled") : BatchRun.describe(error)
      return outcome
    }
    // With --thumbnails-only the original is gone: the line names the source and its thumbnails.
    if outcome.originalRemoved { return outcome }
    outcome.cachePath = path
    // A download's validation read the header, and the fetcher made the thumbnails asked for.
    if outcome.format != nil { return outcome }
    // A cache hit's header is a short read, done here: queued behind a long local decode in
    // `localWork` (one place with `--jobs 1`), it would hold the finished download's line back.
    LocalItem.examine(path, into: &outcome, thumbnail: nil, limits: settings.decodeLimits, alreadyValidated: true)
    return outcome
  }

  private func record(_ result: FetchedThumbnail, into outcome: inout ItemOutcome) -> String {
    outcome.thumbnail = result.thumbnail
    if result.thumbnails.count > 1 { outcome.thumbnails = result.thumbnails }
    // The download's decode made them: its profile's note is said here, as a local file's is.
    LocalItem.sayColorNote(of: result.thumbnails, source: outcome.source)
    outcome.originalRemoved = !result.originalIsKept
    return record(result.original, into: &outcome)
  }

  private func record(_ file: FetchedFile<ValidatedImage>, into outcome: inout ItemOutcome) -> String {
    outcome.cacheHit = file.isCacheHit
    outcome.bytes = file.byteCount
    if let header = file.value?.header {
      outcome.record(header)
    }
    return file.path
  }

  /// The one-line message and the exit-code class of a fetch error.
  static func describe(_ error: any Error) -> (kind: ItemOutcome.FailureKind, message: String) {
    switch error {
    case let error as DecodeError: return LocalItem.describe(error)
    case let error as ThumbnailError: return LocalItem.describe(error)
    case let error as CacheError: return describe(cache: error)
    case let error as ImageFetchError:
      switch error {
      case .cancelled: return (.cancelled, "cancelled")
      case .thumbnail(let cause): return LocalItem.describe(cause)
      case .cache(let cause): return describe(cache: cause)
      // The `.part` file could not be written (a full disk, a link planted in its place).
      case .download(.file): return (.fileSystem, error.description)
      case .parse(let cause): return describe(parse: cause)
      default: return (error.isInvalidImage ? .invalidImage : .network, error.description)
      }
    case let error as ParseError: return describe(parse: error)
    case is CancellationError: return (.cancelled, "cancelled")
    default: return (.network, "\(error)")
    }
  }

  /// A column that holds no file (or nothing), or an object that does not exist (deleted, or hidden
  /// by its ACL), is the data's fault, not the network's: exit 4, as an invalid image, which retrying
  /// does not fix either (so a job runner's retry policy skips it).
  private static func describe(parse error: ParseError) -> (kind: ItemOutcome.FailureKind, message: String) {
    switch error {
    case .missingColumn, .notAFile, .objectNotFound: (.invalidImage, error.description)
    default: (.network, error.description)
    }
  }

  private static func describe(cache error: CacheError) -> (kind: ItemOutcome.FailureKind, message: String) {
    switch error {
    case .validationFailed: (.invalidImage, error.description)
    default: (.fileSystem, error.description)
    }
  }
}
