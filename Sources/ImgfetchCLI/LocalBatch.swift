import Dispatch
import ImageCodecs
import Synchronization
import SystemFiles
import Thumbnails

/// `imgfetch [options] FILE...` for files on this machine: each is validated (and thumbnailed) by
/// ``LocalItem``, `--jobs` at a time, and printed in the order given (a folder operand's images in
/// walk order, ``LocalOperands``). Needs no network, so it runs
/// without the fetcher or a cache. With `--shard K/N`, only the files whose names hash to shard K
/// (as a list of sources with URLs among them is split by the fetch path).
enum LocalBatch {
  static func run(_ invocation: Invocation) -> ExitCode {
    let operands = LocalOperands(invocation)
    let files = operands.items.filter { invocation.parse.shard?.contains($0.label) ?? true }
    let isBatch = invocation.operands.count > 1 || operands.walkedFolder
    var options = invocation.thumbnail.options
    if let output = invocation.folders.outputDirectory, options != nil {
      guard LocalOperands.createOutputDirectory(output) else { return .fileSystem }
      options?.outputDirectory = ThumbnailDirectory(
        path: output, sourceRoot: LocalOperands.sourceRoot(of: invocation.operands, cacheDirectory: nil))
    }
    do throws(UsageError) {
      try ThumbnailNames.check(
        localSources: files.compactMap(\.path), options: options, sizes: invocation.thumbnail.sizes)
    } catch {
      Imgfetch.printUsageError(error)
      return .usage
    }
    let thumbnail = options
    let reporter = ItemReporter(output: invocation.output, total: isBatch ? files.count : 1)
    // Ctrl-C or SIGTERM: finish the items in progress (no partial files), start no more.
    let interrupted = Atomic(false)
    let handler = InterruptHandler(secondSignalStatus: ExitCode.interrupted.rawValue) {
      interrupted.store(true, ordering: .relaxed)
      reporter.progress.finish()
    }
    defer { withExtendedLifetime(handler) {} }
    let next = Atomic(0)
    let delivery = Locked((next: 0, pending: [Int: ItemOutcome]()))
    let workers = max(1, min(invocation.work.jobs, files.count))
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
      while !interrupted.load(ordering: .relaxed) {
        let index = next.add(1, ordering: .relaxed).oldValue
        guard index < files.count else { return }
        var outcome = ItemOutcome(source: files[index].label)
        if case .unreadable(_, let message) = files[index] {
          outcome.failure = (.fileSystem, message)
        } else {
          LocalItem.examine(
            files[index].label, into: &outcome, thumbnail: thumbnail, limits: invocation.limits.decodeLimits,
            alreadyValidated: false, sizes: invocation.thumbnail.sizes)
        }
        delivery.withLock { state in
          state.pending[index] = outcome
          while let ready = state.pending.removeValue(forKey: state.next) {
            reporter.report(ready)
            state.next += 1
          }
        }
      }
    }
    if interrupted.load(ordering: .relaxed) {
      reporter.progress.finish()
      Console.error("interrupted")
      return .interrupted
    }
    return reporter.finish(isBatch: isBatch)
  }
}
