import ImageCodecs

/// `imgfetch verify FILE...`: a full strict decode of each file, row by row into one scratch row
/// (`ImageDecoder.validate`: memory grows with the width, not the area); `OK` or the reason per file.
enum VerifyCommand {
  static func run(_ invocation: Invocation) -> ExitCode {
    let options = DecodeOptions(limits: invocation.limits.decodeLimits)
    var kinds: [ItemOutcome.FailureKind] = []
    for file in invocation.operands {
      do {
        _ = try ImageDecoder.validate(contentsOf: file, options: options)
        Console.out("\(file): OK")
      } catch {
        Console.out("\(file): \(error.summary): \(error.message)")
        kinds.append(LocalItem.describe(error).kind)
      }
    }
    return ExitCode.of(failures: kinds, items: invocation.operands.count)
  }
}
