import Foundation
import ImageCodecs
import ImageFetch
import ImgfetchCLI
import ParseFetch
import SystemFiles

/// The download side of a fetch past the warm hit (the cache directory, the cache, the URL session
/// and the fetcher), made once on one thread and awaited by the command's task on another.
final class DownloadSide: Sendable {
  /// Why the download side could not be made: the message printed and the exit code.
  struct Failure: Error {
    let message: String
    let exitCode: ExitCode
  }

  private struct State {
    var result: Result<ImageFetcher, Failure>?
    var waiting: [CheckedContinuation<Result<ImageFetcher, Failure>, Never>] = []
  }

  private let state = Locked(State())

  /// Makes the download side for these settings and hands it to whoever awaits ``value``.
  /// - Parameter settings: The command's checked settings.
  func make(_ settings: FetchSettings) {
    let result = Self.result(for: settings)
    let waiting = state.withLock { state in
      state.result = result
      defer { state.waiting = [] }
      return state.waiting
    }
    for continuation in waiting { continuation.resume(returning: result) }
  }

  /// The fetcher, or why there is none, once ``make(_:)`` is done.
  var value: Result<ImageFetcher, Failure> {
    get async {
      await withCheckedContinuation { continuation in
        let ready = state.withLock { state in
          if state.result == nil { state.waiting.append(continuation) }
          return state.result
        }
        if let ready { continuation.resume(returning: ready) }
      }
    }
  }

  private static func result(for settings: FetchSettings) -> Result<ImageFetcher, Failure> {
    // A cache directory that cannot be made is a local file-system failure: its path and the
    // system's reason, exit 5.
    let directory = settings.cacheDirectory ?? DiskCache.defaultDirectory()
    do { try Directory.create(directory) } catch {
      return .failure(Failure(message: "cannot use the cache directory: \(error)", exitCode: .fileSystem))
    }
    do {
      let cache = try DiskCache(directory: settings.cacheDirectory)
      return .success(
        try ImageFetcher(
          configuration: settings.parse, cache: cache, downloader: Downloader(options: settings.downloader),
          decodeOptions: DecodeOptions(limits: settings.decodeLimits), maxConcurrentDecodes: settings.jobs))
    } catch {
      let (kind, message) = BatchRun.describe(error)
      return .failure(Failure(message: message, exitCode: kind.exitCode))
    }
  }
}
