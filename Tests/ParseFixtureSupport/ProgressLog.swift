import ParseFetch
import SystemFiles

/// Collects progress reports from any thread.
public final class ProgressLog: Sendable {
  private let reports = Locked<[DownloadProgress]>([])

  public init() {}

  public var handler: ProgressHandler { { progress in self.reports.withLock { $0.append(progress) } } }
  public var all: [DownloadProgress] { reports.withLock { $0 } }
}
