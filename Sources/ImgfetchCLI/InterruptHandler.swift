import Dispatch
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The write end of the self-pipe the signal handler writes to (set once, before the handler).
nonisolated(unsafe) private var interruptPipeWriteEnd: Int32 = -1

/// Turns Ctrl-C (SIGINT) and SIGTERM into a cancellation the program can clean up after: the first
/// signal runs `onInterrupt` (cancel transfers, erase the progress bar); a second one exits at once
/// with status 130.
///
/// The handler is a plain `sigaction` handler installed synchronously, so no signal is lost between
/// start-up and the first transfer; it only writes a byte to a pipe (async-signal-safe), and a
/// thread of its own reads the pipe and runs `onInterrupt`.
public final class InterruptHandler {
  /// Unblocks SIGINT and SIGTERM in the calling thread (and the threads it creates from now on).
  static func unblock() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
  }

  /// Installs the handlers; they stay until the process exits. Install at most one per process.
  /// - Parameter onInterrupt: Called once, on a background thread, at the first signal.
  public init(onInterrupt: @escaping @Sendable () -> Void) {
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { return }
    interruptPipeWriteEnd = ends[1]
    let readEnd = ends[0]
    // A queue of its own (libdispatch gives it a thread; no Foundation, so the codec-only executable
    // can use it too) blocks on the pipe.
    DispatchQueue(label: "imgfetch.interrupts").async {
      var byte: UInt8 = 0
      var seen = 0
      while read(readEnd, &byte, 1) == 1 {
        seen += 1
        if seen == 1 { onInterrupt() } else { exit(ExitCode.interrupted.rawValue) }
      }
    }
    var action = sigaction()
    action.__sigaction_handler.sa_handler = { _ in
      var byte: UInt8 = 1
      _ = write(interruptPipeWriteEnd, &byte, 1)
    }
    sigemptyset(&action.sa_mask)
    action.sa_flags = SA_RESTART
    sigaction(SIGINT, &action, nil)
    sigaction(SIGTERM, &action, nil)
  }
}
