import ParseFetch
import Synchronization

/// Collects progress reports from any thread.
final class ProgressLog: Sendable {
  private let reports = Mutex<[DownloadProgress]>([])

  var handler: ProgressHandler { { progress in self.reports.withLock { $0.append(progress) } } }
  var all: [DownloadProgress] { reports.withLock { $0 } }
}
