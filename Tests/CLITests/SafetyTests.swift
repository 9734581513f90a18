import FixtureSupport
import Foundation
import Testing

/// Command lines that must never destroy data, trap or flood a terminal.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct SafetyTests {
  /// Runs `imgfetch` under a pseudo-terminal (util-linux `script`), as a user at a terminal would.
  /// - Returns: The exit status and everything the terminal received.
  static func runOnATerminal(_ arguments: [String], pipeInto filter: String? = nil, in directory: URL) throws
    -> (status: Int32, drawn: String)
  {
    let binary = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    var command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
    if let filter { command += " | " + filter }
    let typescript = directory.appendingPathComponent("typescript-\(UUID().uuidString)").path
    let result = try runProcess("/usr/bin/script", ["-q", "-e", "-c", command, typescript])
    let drawn = String(decoding: try Data(contentsOf: URL(fileURLWithPath: typescript)), as: UTF8.self)
    return (result.status, drawn)
  }

  @Test func decodeRefusesToWriteOverItsInputByAnyName() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let input = directory.appendingPathComponent("photo.jpg").path
    try FileManager.default.copyItem(atPath: Fixtures.image("testorig.jpg"), toPath: input)
    let original = try Data(contentsOf: URL(fileURLWithPath: input))
    let hardLink = directory.appendingPathComponent("hard.jpg").path
    let symbolicLink = directory.appendingPathComponent("soft.jpg").path
    try FileManager.default.linkItem(atPath: input, toPath: hardLink)
    try FileManager.default.createSymbolicLink(atPath: symbolicLink, withDestinationPath: input)
    for output in [input, hardLink, symbolicLink, directory.path + "/./photo.jpg"] {
      let result = try runImgfetch(["decode", input, "-o", output])
      #expect(result.status == 1, "\(output)")
      #expect(result.stderrText.contains("refusing to overwrite the input"), "\(output)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original, "\(output)")
    }
    // Another file is fine.
    let other = directory.appendingPathComponent("pixels.raw").path
    #expect(try runImgfetch(["decode", input, "-o", other]).status == 0)
    #expect(FileManager.default.contents(atPath: other)?.count == 227 * 149 * 3)
  }

  @Test(arguments: [
    ["--timeout", "inf"], ["--timeout", "1e17"], ["--timeout", "nan"], ["--timeout", "-1"], ["--timeout", "0"],
    ["--retries", "-1"], ["--retries", "1e3"], ["--retries", "100000"], ["--max-bytes", "0"],
    ["--max-bytes", "99999999999999999999"], ["--max-pixels", "0"], ["--max-pixels", "inf"], ["--jobs", "0"],
    ["--jobs", "100000"], ["--jobs", "-3"],
  ])
  func numericOptionsOutOfRangeAreUsageErrors(option: [String]) throws {
    // Port 9 (discard) is closed: a run that got past the options would fail on the network (3).
    let result = try runImgfetch(["http://127.0.0.1:9/photo.jpg"] + option + ["--progress", "never"])
    #expect(result.status == 1, "\(option)")
    #expect(result.stderrText.hasPrefix("imgfetch: \(option[0]) needs"), "\(option): \(result.stderrText)")
    #expect(result.stderrText.split(separator: "\n").count == 1)
  }

  @Test func cacheMaxAgeMustBeFinite() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    for age in ["inf", "nan", "-5", "1e300"] {
      let result = try runImgfetch(["cache", "gc", "--cache-dir", directory.path, "--max-age", age])
      #expect(result.status == 1, "\(age)")
      #expect(result.stderrText.hasPrefix("imgfetch: --max-age needs seconds"), "\(age)")
    }
  }

  @Test func decodeToATerminalNeedsDashOAsked() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = Fixtures.image("basn2c08.png")
    let refused = try Self.runOnATerminal(["decode", file], in: directory)
    #expect(refused.status == 1)
    #expect(refused.drawn.contains("standard output is a terminal"))
    #expect(refused.drawn.utf8.count < 32 * 32)  // a line, no pixels
    let asked = try Self.runOnATerminal(["decode", file, "-o", "-"], in: directory)
    #expect(asked.status == 0)
    #expect(asked.drawn.utf8.count >= 32 * 32 * 4)
    // A pipe or a file is not a terminal: the default stays standard output.
    #expect(try runImgfetch(["decode", file]).stdout.count == 32 * 32 * 4)
  }
}
