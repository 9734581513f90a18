import ImageCodecs

/// `imgfetch verify FILE...`: a full strict decode of each file; `OK` or the reason per file.
enum VerifyCommand {
  static let specs: [OptionSpec] = [
    OptionSpec("max-pixels", value: true, help: "largest accepted width x height (default 100000000)")
  ]

  static func run(_ arguments: [String]) throws(UsageError) -> ExitCode {
    let parsed = try parseArguments(arguments, specs: specs)
    guard !parsed.positionals.isEmpty else { throw UsageError("verify needs at least one FILE") }
    let options = DecodeOptions(limits: try CodecOptions.limits(parsed))
    var exitCode = ExitCode.success
    var image = Image(width: 1, height: 1, pixelFormat: .gray8)
    for file in parsed.positionals {
      do {
        try ImageDecoder.decode(contentsOf: file, options: options, into: &image)
        Console.out("\(file): OK")
      } catch {
        Console.out("\(file): \(error.summary): \(error.message)")
        exitCode = .invalidImage
      }
    }
    return exitCode
  }
}
