import FixtureSupport
import Foundation
import Testing

/// Issue 12.7: `scripts/demo` as a new user runs it, standard output and error in one stream as a
/// terminal shows them: it finishes, no result line shares a line with the progress bar, and the
/// scratch directory (server log, cache) is gone at the end (the old demo left it behind). The rule
/// that keeps the bar off results piped to another program (`| head`, which reach the terminal
/// later) is FetchCommandTests' pseudo-terminal test.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct DemoTests {
  @Test func theDemoKeepsTheBarOffTheResultLinesAndLeavesNothingBehind() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let temporary = scratch.appendingPathComponent("tmp")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    let demo = Fixtures.root.appendingPathComponent("scripts/demo").path
    let binary = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    // Standard error into standard output, as a terminal shows both: the bar (which the first run
    // asks for with --progress always) and the result lines in one stream.
    let result = try runProcess(
      "/bin/sh", ["-c", "'\(demo)' 2>&1"], environment: ["IMGFETCH_DEMO_BIN": binary, "TMPDIR": temporary.path])
    let drawn = result.stdoutText
    #expect(result.status == 0, "\(drawn.suffix(2000))")
    // The bar was drawn (the first run asks for it), and every result line starts a line of its
    // own: what stays visible of a terminal line is what follows its last carriage return (and the
    // bar's erase-to-end), and a result must begin there.
    #expect(drawn.contains("100% ["))
    var (jsonLines, plainLines) = (0, 0)
    for line in drawn.components(separatedBy: "\n") {
      var visible = line
      while visible.hasSuffix("\r") { visible.removeLast() }
      if let carriageReturn = visible.lastIndex(of: "\r") {
        visible = String(visible[visible.index(after: carriageReturn)...])
      }
      if visible.hasPrefix("\u{1B}[K") { visible.removeFirst(3) }
      if visible.contains("{\"source\":") {
        #expect(visible.hasPrefix("{\"source\":"), "a JSON line shares its line: \(visible)")
        jsonLines += 1
      }
      if visible.contains(".thumb-256.") && visible.contains("\t") {
        #expect(visible.hasPrefix(temporary.path), "a result line shares its line: \(visible)")
        plainLines += 1
      }
    }
    #expect(jsonLines == 3 && plainLines == 10, "\(drawn)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path).isEmpty)
  }
}
