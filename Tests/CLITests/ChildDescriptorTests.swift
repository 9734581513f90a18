import FixtureSupport
import Foundation
import ParseFixtureSupport
import Testing

/// The children the test helpers start hold none of the test process's descriptors but their
/// standard ones. Tests run in parallel in one process, and a long-lived child holding another
/// test's pipe (or the socket Foundation's `Process` watches for its child's exit) keeps that test
/// waiting forever: a clean-clone CI run once hung so, with fixture servers holding other tests' pipes.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ChildDescriptorTests {
  /// A child that leaves a process running in the background (with its standard descriptors on
  /// /dev/null, as a daemon or a hand-off does) has finished for `runProcess`, which returns then
  /// rather than when the background process ends. The background process lasts 200 s and the
  /// bound is 100 s: a hang guard that tells the two apart, not a timing. The time is measured around
  /// `runProcess` alone, on its own thread: measured across the `await`, it included the wait for a
  /// free cooperative thread, which the suite's synchronous tests held for 168 s in a whole-suite run.
  @Test func aChildThatLeavesAProcessRunningDoesNotHoldUpRunProcess() async throws {
    let (run, elapsed) = try await offThePool { () -> (ProcessResult, Duration) in
      let start = ContinuousClock.now
      let run = try runProcess("/bin/sh", ["-c", "sleep 200 </dev/null >/dev/null 2>&1 & echo $!"])
      return (run, ContinuousClock.now - start)
    }
    if let sleeper = pid_t(run.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) { kill(sleeper, SIGKILL) }
    #expect(run.status == 0)
    #expect(elapsed < .seconds(100), "runProcess waited \(elapsed) for the background process")
  }

  /// A fixture server started while the test holds a pipe that is not close-on-exec (as Foundation
  /// makes them for other tests' children) holds no pipe and no Unix socket: none of its own, so
  /// any would be the test process's.
  @Test func fixtureServersHoldNoPipeOrUnixSocketOfTheTestProcess() async throws {
    let held = Pipe()
    let parse = try await ParseFixture()
    let nginx = try await NginxHost(images: [])
    for server in [parse.server, nginx.server] {
      let found = Self.pipesAndUnixSockets(from: server.processIdentifier)
      #expect(found.isEmpty, "the server's processes hold \(found)")
    }
    withExtendedLifetime(held) {}
  }

  /// The descriptors above 2 that `pid` or any of its descendants holds on a pipe or a Unix-domain
  /// socket, as `pid:fd -> pipe:[inode]`. Read through ProcFiles: a process may exit mid-walk.
  static func pipesAndUnixSockets(from pid: pid_t) -> [String] {
    // /proc/net/unix: one line per Unix socket, its inode in the seventh column.
    let table = ProcFiles.text("/proc/net/unix") ?? ""
    let unixSockets = Set(
      table.split(separator: "\n").dropFirst().compactMap { line in
        line.split(separator: " ").dropFirst(6).first.map { "socket:[\($0)]" }
      })
    var found: [String] = []
    var pending = [pid]
    while let process = pending.popLast() {
      let directory = "/proc/\(process)/fd"
      for fd in ProcFiles.names(in: directory) where Int(fd) ?? 0 > 2 {
        guard let target = ProcFiles.link("\(directory)/\(fd)") else { continue }
        if target.hasPrefix("pipe:") || unixSockets.contains(target) { found.append("\(process):\(fd) -> \(target)") }
      }
      let children = ProcFiles.text("/proc/\(process)/task/\(process)/children") ?? ""
      pending += children.split(whereSeparator: \.isWhitespace).compactMap { pid_t($0) }
    }
    return found
  }
}
