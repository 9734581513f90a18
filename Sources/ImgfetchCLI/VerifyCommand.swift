import ImageCodecs

/// `imgfetch verify FILE...`: a full strict decode of each file; `OK` or the reason per file.
enum VerifyCommand {
  static func run(_ invocation: Invocation) -> ExitCode {
    let options = DecodeOptions(limits: invocation.limits.decodeLimits)
    var kinds: [ItemOutcome.FailureKind] = []
    var image = Image(width: 1, height: 1, pixelFormat: .gray8)
    for file in invocation.operands {
      do {
        try ImageDecoder.decode(contentsOf: file, options: options, into: &image)
        Console.out("\(file): OK")
      } catch {
        Console.out("\(file): \(error.summary): \(error.message)")
        kinds.append(LocalItem.describe(error).kind)
      }
    }
    return ExitCode.of(failures: kinds, items: invocation.operands.count)
  }
}
