import FixtureSupport
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// FIFOs and devices given to `imgfetch` as inputs or outputs (issue 11, items 1 and 7): an input
/// that is not a regular file is refused at once with one line, and an output that is not a regular
/// file is written, never replaced. Every run sits under `timeout`, so a hang fails the test.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct SpecialFileTests {
  /// Runs imgfetch with a 60 s wall limit (exit 124 when it hangs).
  func run(_ arguments: [String]) throws -> ProcessResult {
    let binary = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    return try runProcess("/usr/bin/timeout", ["60", binary] + arguments)
  }

  func kind(_ path: String) -> mode_t {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
  }

  func withDirectory(_ body: (String) throws -> Void) throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try body(directory.path)
  }

  @Test(arguments: [["info"], ["verify"], ["decode"], ["--thumbnail", "64"]])
  func aFIFOAsInputIsRefusedWithOneLine(command: [String]) throws {
    try withDirectory { directory in
      let fifo = "\(directory)/photo.jpg"
      try #require(mkfifo(fifo, 0o600) == 0)
      let result = try run(command + [fifo])
      #expect(result.status == 5, "exit 5 (a file that cannot be read), not a hang (124)")
      // The reason on stderr, whatever the command (info's error object on stdout aside).
      let text = result.stderrText
      #expect(text.contains("\(fifo): cannot read file: a FIFO, not a regular file"))
      #expect(text.split(separator: "\n").count == 1)
    }
  }

  @Test func aFIFOAtTheThumbnailPathNeitherHangsNorIsReplaced() throws {
    try withDirectory { directory in
      let source = "\(directory)/a.png"
      try FileManager.default.copyItem(atPath: Fixtures.image("basn6a08.png"), toPath: source)
      let first = try run(["--thumbnail", "64", source])
      try #require(first.status == 0)
      // The line is the source, a tab, and the thumbnail's path.
      let thumbnail = String(first.stdoutText.trimmingCharacters(in: .newlines).split(separator: "\t").last ?? "")
      unlink(thumbnail)
      try #require(mkfifo(thumbnail, 0o600) == 0)
      let second = try run(["--thumbnail", "64", source])
      #expect(second.status != 124 && second.status != 0)
      // Never opened, never replaced: a thumbnail is always renamed into place (issue 30.7).
      #expect(second.stderrText == "imgfetch: \(thumbnail): cannot write: a FIFO, not a regular file\n")
      #expect(kind(thumbnail) == S_IFIFO)
    }
  }

  @Test func decodeIntoAFIFOWritesThePixelsAndLeavesTheFIFO() throws {
    try withDirectory { directory in
      let fifo = "\(directory)/pixels"
      try #require(mkfifo(fifo, 0o600) == 0)
      // The read end, opened first without waiting; 32x32 RGBA (4 KiB) fits the pipe's buffer.
      let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
      try #require(reader >= 0)
      defer { close(reader) }
      let result = try run(["decode", Fixtures.image("basn6a08.png"), "-o", fifo])
      #expect(result.status == 0 && result.stderr.isEmpty)
      var bytes = [UInt8](repeating: 0, count: 8192)
      let got = bytes.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
      let reference = try runImgfetch(["decode", Fixtures.image("basn6a08.png")])
      #expect(got == 4096 && Array(bytes[..<got]) == reference.stdout)
      #expect(kind(fifo) == S_IFIFO, "still a FIFO, not a regular file renamed over it")
      #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["pixels"])
    }
  }

  @Test func decodeIntoDevNullLeavesTheDevice() throws {
    let result = try run(["decode", Fixtures.image("basn6a08.png"), "-o", "/dev/null"])
    #expect(result.status == 0 && result.stderr.isEmpty)
    #expect(kind("/dev/null") == S_IFCHR, "still the device, not a file of pixels")
  }
}
