import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Turns Ctrl-C (SIGINT) and SIGTERM into a cancellation the program can clean up after: the first
/// signal runs `onInterrupt` (cancel transfers, erase the progress bar); a second one exits at once
/// with status 130.
final class InterruptHandler {
  private let sources: [any DispatchSourceSignal]

  /// Installs the handlers; they stay until the process exits.
  /// - Parameter onInterrupt: Called once, on a background queue, at the first signal.
  init(onInterrupt: @escaping @Sendable () -> Void) {
    let queue = DispatchQueue(label: "imgfetch.signals")
    let fired = Atomic(false)
    sources = [SIGINT, SIGTERM].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
      source.setEventHandler {
        if fired.exchange(true, ordering: .relaxed) { exit(ExitCode.interrupted.rawValue) }
        onInterrupt()
      }
      source.resume()
      return source
    }
  }
}
