import ImgfetchCLI
import Testing

/// The table-driven parser: long and short options, values inline or separate, `--`, errors.
@Suite(.timeLimit(.minutes(30))) struct ArgumentParserTests {
  let specs = [
    OptionSpec("output", short: "o", value: true, help: ""),
    OptionSpec("orient", help: ""),
    OptionSpec("pixel-format", value: true, help: ""),
  ]

  @Test func parsesValuesFlagsAndPositionals() throws {
    let parsed = try parseArguments(
      ["a.png", "--orient", "-o", "out.raw", "--pixel-format=rgb8", "b.png"], specs: specs)
    #expect(parsed.positionals == ["a.png", "b.png"])
    #expect(parsed.has("orient"))
    #expect(parsed.value("output") == "out.raw")
    #expect(parsed.value("pixel-format") == "rgb8")
  }

  @Test func dashAloneAndAfterDoubleDashArePositional() throws {
    let parsed = try parseArguments(["-o", "-", "--", "--orient"], specs: specs)
    #expect(parsed.value("output") == "-")
    #expect(parsed.positionals == ["--orient"])
    #expect(!parsed.has("orient"))
  }

  @Test func unknownOptionIsAUsageError() {
    #expect(throws: UsageError("unknown option --bogus")) { try parseArguments(["--bogus"], specs: specs) }
    #expect(throws: UsageError("unknown option -x")) { try parseArguments(["-x"], specs: specs) }
  }

  @Test func missingAndUnexpectedValues() {
    #expect(throws: UsageError("option --output needs a value")) { try parseArguments(["-o"], specs: specs) }
    #expect(throws: UsageError("option --orient takes no value")) {
      try parseArguments(["--orient=yes"], specs: specs)
    }
  }
}
