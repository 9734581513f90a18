import Foundation
import Testing

/// Threads of their own for the suites whose tests block: `@Suite(.runsOnTestThreads, ...)` runs
/// each of its tests (the synchronous body, or every step of an async one) on ``TestThreads``
/// instead of Swift's cooperative pool.
///
/// Why: the pool has one thread per core (two here), and a test that waits for a child process
/// synchronously (`runProcess`, `runImgfetch`) holds one of them for the child's whole run. Every
/// other test's next step then queues behind those tests, and a Swift Testing time limit counts
/// that wait: a whole-suite run under AddressSanitizer on a loaded machine had trivial tests fail
/// their ten minutes without having run, and async tests wait minutes between two steps.
/// `TestHygieneTests` requires this trait on every suite whose file starts children.
public struct RunsOnTestThreadsTrait: SuiteTrait, TestTrait, TestScoping {
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    guard testCase != nil else { return try await function() }  // the suite itself: nothing to run
    try await withTaskExecutorPreference(TestThreads.shared) { try await function() }
  }
}

extension Trait where Self == RunsOnTestThreadsTrait {
  /// Runs the suite's tests on ``TestThreads`` (see ``RunsOnTestThreadsTrait``).
  public static var runsOnTestThreads: Self { Self() }
}

/// A fixed pool of threads (two per core, at least four) that runs the jobs of the tests of
/// ``RunsOnTestThreadsTrait`` suites in the order they come: at most that many of those tests
/// block at once, and none of them holds a thread of the cooperative pool.
public final class TestThreads: TaskExecutor, @unchecked Sendable {
  /// The pool every such suite shares.
  public static let shared = TestThreads(count: max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

  private let condition = NSCondition()
  private var jobs: [UnownedJob] = []

  init(count: Int) {
    for _ in 0..<count {
      let thread = Thread { [unowned self] in self.work() }
      thread.name = "test thread"
      thread.start()
    }
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let unowned = UnownedJob(job)
    condition.lock()
    jobs.append(unowned)
    condition.signal()
    condition.unlock()
  }

  private func work() {
    let executor = asUnownedTaskExecutor()
    while true {
      condition.lock()
      while jobs.isEmpty { condition.wait() }
      let job = jobs.removeFirst()
      condition.unlock()
      job.runSynchronously(on: executor)
    }
  }
}
