import ImageCodecs

/// `imgfetch verify FILE...`: a full strict decode of each file, row by row into one scratch row
/// (`ImageDecoder.validate`: memory grows with the width, not the area); `OK` or the reason per file.
/// A folder operand stands for its images (``LocalOperands``).
enum VerifyCommand {
  static func run(_ invocation: Invocation) -> ExitCode {
    let options = DecodeOptions(limits: invocation.limits.decodeLimits)
    var kinds: [ItemOutcome.FailureKind] = []
    // A folder operand stands for its images (`-r`: its subfolders' too); one that cannot be listed
    // is a failure of its own, reported as the files are.
    let files = LocalOperands(invocation).items
    for item in files {
      if case .unreadable(_, let message) = item {
        Console.out(message)
        kinds.append(.fileSystem)
        continue
      }
      let file = item.label
      do {
        _ = try ImageDecoder.validate(contentsOf: file, options: options)
        Console.out("\(file): OK")
      } catch {
        Console.out("\(file): \(error.summary): \(error.message)")
        kinds.append(LocalItem.describe(error).kind)
      }
    }
    return ExitCode.of(failures: kinds, items: files.count)
  }
}
