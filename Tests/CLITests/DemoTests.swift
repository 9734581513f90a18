import FixtureSupport
import Foundation
import Glibc
import Testing

/// Issue 12.7: `scripts/demo` as a new user runs it, standard output and error in one stream: it
/// finishes, every result line is a line of its own, and the
/// scratch directory (the server's log) is gone at the end (the old demo left it behind). Issue 24.4:
/// the thumbnails stay, in the directory the demo names, for the user to open, and the server is
/// stopped. Issue 32: the demo keeps `--progress auto`, so its log off a terminal (a file, CI) has
/// no bar redraws: no carriage return, no escape code. The rule that keeps the bar off results piped
/// to another program (`| head`, which reach the terminal later) is FetchCommandTests'
/// pseudo-terminal test; the batch bar itself is ClassWalkTests'.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct DemoTests {
  /// Whether something accepts TCP connections on 127.0.0.1 at `port`.
  static func accepts(port: Int) -> Bool {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  @Test func theDemosLogOffATerminalIsPlainLinesAndItLeavesItsThumbnailsToOpen() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let temporary = scratch.appendingPathComponent("tmp")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    let kept = scratch.appendingPathComponent("imgfetch-demo")
    let demo = Fixtures.root.appendingPathComponent("scripts/demo").path
    let binary = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    // Standard error into standard output, one stream into a pipe, as `scripts/demo > log 2>&1` or a
    // CI job keeps it: the log must read as plain lines (no carriage-return redraws, no escape codes)
    // and hold every run's results.
    let result = try runProcess(
      "/bin/sh", ["-c", "'\(demo)' 2>&1"],
      environment: ["IMGFETCH_DEMO_BIN": binary, "TMPDIR": temporary.path, "IMGFETCH_DEMO_DIR": kept.path])
    let drawn = result.stdoutText
    #expect(result.status == 0, "\(drawn.suffix(2000))")
    #expect(!result.stdout.contains(UInt8(ascii: "\r")), "a carriage return in the log: \(drawn.prefix(2000))")
    #expect(!result.stdout.contains(0x1B), "an escape code in the log: \(drawn.prefix(2000))")
    var (jsonLines, plainLines) = (0, 0)
    for line in drawn.components(separatedBy: "\n") {
      if line.contains("{\"source\":") {
        #expect(line.hasPrefix("{\"source\":"), "a JSON line shares its line: \(line)")
        jsonLines += 1
      }
      if line.contains(".thumb-256.") && line.contains("\t") {
        // A class walk's line: the objectId, a tab, the cached file (issue 32).
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        #expect(
          fields.count == 3 && fields[0].count == 10 && fields[0].allSatisfy { $0.isLetter || $0.isNumber }
            && fields[1].hasPrefix(kept.path),
          "a result line shares its line: \(line)")
        plainLines += 1
      }
    }
    #expect(jsonLines == 3 && plainLines == 10, "\(drawn)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
    // The ten thumbnails stay where the last line says, each a real image; the server is gone.
    #expect(
      drawn.hasSuffix("The originals and their thumbnails are in \(kept.path) (remove it with: rm -r '\(kept.path)')\n")
    )
    let thumbnails = try FileManager.default.contentsOfDirectory(atPath: kept.path).filter {
      $0.contains(".thumb-256.")
    }
    #expect(thumbnails.count == 10)
    for name in thumbnails {
      let verified = try runImgfetch(["verify", kept.appendingPathComponent(name).path])
      #expect(verified.status == 0, "\(name): \(verified.stderrText)")
    }
    let port = try #require(
      drawn.components(separatedBy: "\n").first { $0.hasPrefix("== fixture Parse Server on 127.0.0.1:") }?
        .dropFirst("== fixture Parse Server on 127.0.0.1:".count).prefix { $0.isNumber })
    #expect(!Self.accepts(port: Int(port)!), "the fixture server still listens on \(port)")
    // A second run starts from an empty cache: it clears what the first left, and says what.
    let again = try runProcess(
      "/bin/sh", ["-c", "'\(demo)' 2>&1"],
      environment: ["IMGFETCH_DEMO_BIN": binary, "TMPDIR": temporary.path, "IMGFETCH_DEMO_DIR": kept.path])
    #expect(again.status == 0)
    #expect(again.stdoutText.hasPrefix("removed 10 images ("), "\(again.stdoutText.prefix(300))")
    #expect(again.stdoutText.contains(", 10 thumbnails ("))
  }
}
