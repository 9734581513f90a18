import FixtureSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What a long thumbnail batch leaves to the system around it (issue 11, items 7 and 14): every
/// descriptor it opens is close-on-exec, so none leaks into a program it starts, and the first
/// SIGTERM ends it promptly even when one of its inputs is a FIFO.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct DescriptorAndSignalTests {
  /// A directory with `count` copies of a 1200x1800 JPEG, named `photo-N.jpg`.
  func batchDirectory(count: Int) throws -> (directory: URL, files: [String]) {
    let directory = try Fixtures.temporaryDirectory()
    let files = try (0..<count).map { index in
      let path = directory.appendingPathComponent("photo-\(index).jpg").path
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_5.jpg"), toPath: path)
      return path
    }
    return (directory, files)
  }

  /// Starts imgfetch with standard output to a file (read while it runs) and standard error discarded.
  func start(_ arguments: [String], stdout: URL) throws -> ChildProcess.Running {
    let output = open(stdout.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard output >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    defer { close(output) }
    let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    return try ChildProcess.Running([imgfetch] + arguments, stdio: [-1, output, -1])
  }

  /// Polls `condition` every 10 ms until it holds or `seconds` pass.
  @discardableResult
  func wait(seconds: Double, until condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
      if condition() { return true }
      usleep(10_000)
    }
    return condition()
  }

  @Test func everyDescriptorOfABatchIsCloseOnExec() throws {
    let (directory, files) = try batchDirectory(count: 30)
    defer { try? FileManager.default.removeItem(at: directory) }
    // Started with descriptors 0-2 only (ChildProcess), so any other descriptor is imgfetch's own;
    // posix_spawn returns once the exec is done.
    let process = try start(
      ["--thumbnail", "64", "--jobs", "1"] + files, stdout: directory.appendingPathComponent("out.txt"))
    var leaking: Set<String> = []
    var samples = 0
    // The Swift runtime's start-up (CommandLine.cpp, before main, one thread) reads
    // /proc/self/maps with a plain fopen: not imgfetch's, and no exec can happen then.
    let startup = "/proc/\(process.pid)/maps"
    let deadline = ContinuousClock.now + .seconds(300)
    while process.isRunning && ContinuousClock.now < deadline {
      // Through ProcFiles: the batch may exit between any two reads of its /proc directory.
      for (number, target) in ProcFiles.inheritableDescriptors(of: process.pid) where number > 2 && target != startup {
        leaking.insert("\(number) -> \(target)")
      }
      samples += 1
      usleep(5_000)
    }
    #expect(process.waitUntilExit(limit: .seconds(10)) == .exit(0))
    #expect(samples > 3, "the batch ran long enough to be looked at")
    #expect(leaking.isEmpty, "descriptors without O_CLOEXEC: \(leaking.sorted())")
  }

  @Test func theFirstSIGTERMEndsABatchThatStartsWithAFIFO() throws {
    let (directory, files) = try batchDirectory(count: 40)
    defer { try? FileManager.default.removeItem(at: directory) }
    let fifo = directory.appendingPathComponent("stuck.jpg").path
    try #require(mkfifo(fifo, 0o600) == 0)
    let output = directory.appendingPathComponent("out.txt")
    let process = try start(["--thumbnail", "64", "--jobs", "1", fifo] + files, stdout: output)
    // Once a thumbnail is out the batch is past the FIFO (before the fix it waited on it for ever).
    // (The size from stat: reading the file with `Data(contentsOf:)` in this polling loop leaked
    // Foundation's read buffer under LeakSanitizer.)
    wait(seconds: 10) { ((try? FileManager.default.attributesOfItem(atPath: output.path))?[.size] as? Int ?? 0) > 0 }
    process.send(SIGTERM)
    let signalled = ContinuousClock.now
    let ended = wait(seconds: 15) { !process.isRunning }
    let termination = process.waitUntilExit(limit: .seconds(5))
    #expect(ended, "one SIGTERM was enough")
    #expect(ContinuousClock.now - signalled < .seconds(20))
    #expect([.exit(0), .exit(130)].contains(termination), "\(termination)")
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
    #expect(leftovers.isEmpty, "no hidden temporary file left: \(leftovers)")
  }
}
