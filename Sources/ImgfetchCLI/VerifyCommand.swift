import ImageCodecs

/// `imgfetch verify FILE...`: a full strict decode of each file, row by row into one scratch row
/// (`ImageDecoder.validate`: memory grows with the width, not the area); `OK` or the reason per file.
enum VerifyCommand {
  static let specs: [OptionSpec] = [
    OptionSpec("max-pixels", value: true, help: "largest accepted width x height (default 100000000)")
  ]

  static func run(_ arguments: [String]) throws(UsageError) -> ExitCode {
    let parsed = try parseArguments(arguments, specs: specs)
    guard !parsed.positionals.isEmpty else { throw UsageError("verify needs at least one FILE") }
    let options = DecodeOptions(limits: try CodecOptions.limits(parsed))
    var exitCode = ExitCode.success
    for file in parsed.positionals {
      do {
        _ = try ImageDecoder.validate(contentsOf: file, options: options)
        Console.out("\(file): OK")
      } catch {
        Console.out("\(file): \(error.summary): \(error.message)")
        exitCode = .invalidImage
      }
    }
    return exitCode
  }
}
