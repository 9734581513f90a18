import FixtureSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What a long thumbnail batch leaves to the system around it (issue 11, items 7 and 14): every
/// descriptor it opens is close-on-exec, so none leaks into a program it starts, and the first
/// SIGTERM ends it promptly even when one of its inputs is a FIFO.
@Suite(.timeLimit(.minutes(10))) struct DescriptorAndSignalTests {
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
  func start(_ arguments: [String], stdout: URL, executable: String? = nil) throws -> Process {
    _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
    let process = Process()
    process.executableURL =
      executable.map { URL(fileURLWithPath: $0) } ?? Fixtures.productsDirectory.appendingPathComponent("imgfetch")
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: stdout)
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
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
    // Foundation's Process passes on whatever the test runner has open, so python closes every
    // descriptor above 2 and execs imgfetch: then any other descriptor is imgfetch's own.
    let binary = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let clean = "import os, sys; os.closerange(3, 65536); os.execv(sys.argv[1], sys.argv[1:])"
    let process = try start(
      ["-c", clean, binary, "--thumbnail", "64", "--jobs", "1"] + files,
      stdout: directory.appendingPathComponent("out.txt"), executable: "/usr/bin/python3")
    var leaking: Set<String> = []
    var samples = 0
    let executable = "/proc/\(process.processIdentifier)/exe"
    while process.isRunning {
      // Only once the exec is done: before it, the process is python with the runner's descriptors.
      guard (try? FileManager.default.destinationOfSymbolicLink(atPath: executable)) == binary else {
        usleep(1_000)
        continue
      }
      // The Swift runtime's start-up (CommandLine.cpp, before main, one thread) reads
      // /proc/self/maps with a plain fopen: not imgfetch's, and no exec can happen then.
      let startup = "/proc/\(process.processIdentifier)/maps"
      for (number, target) in inheritableDescriptors(of: "\(process.processIdentifier)")
      where number > 2 && target != startup {
        leaking.insert("\(number) -> \(target)")
      }
      samples += 1
      usleep(5_000)
    }
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(samples > 3, "the batch ran long enough to be looked at")
    #expect(leaking.isEmpty, "descriptors without O_CLOEXEC: \(leaking.sorted())")
  }

  /// The descriptors of a process without close-on-exec, with what they point at, from
  /// /proc/PID/fdinfo (flags are octal; O_CLOEXEC is 02000000).
  func inheritableDescriptors(of process: String) -> [Int: String] {
    let fdinfo = "/proc/\(process)/fdinfo"
    var found: [Int: String] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: fdinfo)) ?? [] {
      guard let number = Int(name),
        let text = try? String(contentsOfFile: "\(fdinfo)/\(name)", encoding: .utf8),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
        let flags = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8),
        flags & 0o2_000_000 == 0
      else { continue }
      found[number] =
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process)/fd/\(name)")) ?? "?"
    }
    return found
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
    kill(process.processIdentifier, SIGTERM)
    let signalled = ContinuousClock.now
    let ended = wait(seconds: 15) { !process.isRunning }
    if !ended { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    #expect(ended, "one SIGTERM was enough")
    #expect(ContinuousClock.now - signalled < .seconds(15))
    #expect(process.terminationReason == .exit && [0, 130].contains(process.terminationStatus))
    let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".") }
    #expect(leftovers.isEmpty, "no hidden temporary file left: \(leftovers)")
  }
}
