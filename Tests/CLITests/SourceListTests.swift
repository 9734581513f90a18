import FixtureSupport
import Foundation
import Testing

/// `--from-file LIST` (issue 32): sources one per line, from a file, a pipe or standard input,
/// after those on the command line, for every command that takes sources.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(5))) struct SourceListTests {
  static let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path

  @Test func aListFileNamesSourcesAfterTheCommandLines() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let (good, other) = (Fixtures.image("basn2c08.png"), Fixtures.image("basn0g02.png"))
    let list = directory.appendingPathComponent("list.txt")
    try "# photos to check\n\(other)\r\n\n   \n  \(Fixtures.image("badcrc.png"))  \n".write(
      to: list, atomically: true, encoding: .utf8)
    let run = try runImgfetch(["verify", good, "--from-file", list.path])
    #expect(run.status == 2, "\(run.stderrText)")  // one of three fails
    #expect(run.stdoutText == "\(good): OK\n\(other): OK\n")
    #expect(run.stderrText.hasPrefix("imgfetch: \(Fixtures.image("badcrc.png")): "))
  }

  @Test func aDashReadsTheListFromStandardInputAndAPipeWorksToo() throws {
    let png = Fixtures.image("basn2c08.png")
    let piped = try runProcess("/bin/bash", ["-c", "printf '%s\\n' \"$1\" | \"$0\" verify --from-file -", Self.imgfetch, png])
    #expect(piped.status == 0, "\(piped.stderrText)")
    #expect(piped.stdoutText == "\(png): OK\n")
    let substituted = try runProcess("/bin/bash", ["-c", "\"$0\" info --from-file <(echo \"$1\")", Self.imgfetch, png])
    #expect(substituted.status == 0, "\(substituted.stderrText)")
    #expect(substituted.stdoutText.contains("\"format\":\"png\""), "\(substituted.stdoutText)")
  }

  @Test func anUnreadableListIsAUsageErrorBeforeAnyWork() throws {
    let run = try runImgfetch(["verify", "--from-file", "/nonexistent/list.txt"])
    #expect(run.status == 1)
    #expect(
      run.stderrText
        == "imgfetch: --from-file cannot read its list: /nonexistent/list.txt: cannot open: No such file or directory (see imgfetch --help)\n")
    let folder = try runImgfetch(["verify", "--from-file", "/tmp"])
    #expect(folder.status == 1 && folder.stderrText.contains("--from-file cannot read its list"))
    let decode = try runImgfetch(["decode", "--from-file", "/tmp/x"])
    #expect(decode.status == 1 && decode.stderrText.hasPrefix("imgfetch: --from-file does not apply to decode"))
  }
}
