import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

/// The write end of the self-pipe (a socket pair) the signal handler writes to (set once, before the handler).
nonisolated(unsafe) private var interruptPipeWriteEnd: Int32 = -1

/// Turns Ctrl-C (SIGINT) and SIGTERM into a cancellation the program can clean up after: the first
/// signal runs `onInterrupt` (cancel transfers, erase the progress bar, stop a batch), and the
/// program ends as it sees fit; a second signal ends the process at once with the status given
/// (the command line's 130). It is the process's one way of handling those signals.
///
/// The handler is a plain `sigaction` handler installed synchronously, so no signal is lost between
/// start-up and the first transfer; it only writes a byte to a pipe (async-signal-safe), and a
/// thread of its own reads the pipe and runs `onInterrupt`. The pipe is close-on-exec, so it never
/// leaks into a program imgfetch starts. The second signal ends the process with `_exit`, never
/// `exit`: `exit` from this thread would run the atexit handlers and static destructors (Foundation,
/// libcurl) while the main thread and the workers still use them.
public final class InterruptHandler {
  /// Unblocks SIGINT and SIGTERM in the calling thread (and the threads it creates from now on): a
  /// parent may have started the process with them blocked.
  public static func unblock() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGINT)
    sigaddset(&set, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
  }

  /// Installs the handlers; they stay until the process exits. Install at most one per process.
  /// - Parameters:
  ///   - secondSignalStatus: The exit status of the process at a second signal.
  ///   - onInterrupt: Called once, on a background thread, at the first signal.
  public init(secondSignalStatus: Int32, onInterrupt: @escaping @Sendable () -> Void) {
    var ends: [Int32] = [0, 0]
    // A socket pair stands in for pipe2(O_CLOEXEC), which Glibc's Swift module does not show:
    // close-on-exec from creation, with no window in which another thread's exec could inherit it.
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
      return
    }
    interruptPipeWriteEnd = ends[1]
    let readEnd = ends[0]
    // A queue of its own (libdispatch gives it a thread; no Foundation is needed) blocks on the pipe.
    DispatchQueue(label: "imgfetch.interrupts").async {
      var byte: UInt8 = 0
      var seen = 0
      while read(readEnd, &byte, 1) == 1 {
        seen += 1
        if seen == 1 { onInterrupt() } else { _exit(secondSignalStatus) }
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
