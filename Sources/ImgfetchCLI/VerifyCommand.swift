import ImageCodecs
import SystemFiles

/// `imgfetch verify FILE...`: a full strict decode of each file, row by row into one scratch row
/// (`ImageDecoder.validate`: memory grows with the width, not the area). `FILE: OK` on standard
/// output per valid file (with `--json` the default command's object: `source`, the sizes,
/// `format`, `bytes`), the reason on standard error per invalid one (``FileReport``). A folder
/// operand stands for its images.
enum VerifyCommand {
  static func run(_ invocation: Invocation) -> ExitCode {
    let options = DecodeOptions(limits: invocation.limits.decodeLimits)
    var report = FileReport(json: invocation.output.json, quiet: invocation.output.quiet)
    // A folder operand stands for its images (`-r`: its subfolders' too, ``LocalOperands``); one
    // that cannot be listed is a failure of its own.
    for item in LocalOperands(invocation).items {
      if case .unreadable(let folder, let message) = item {
        report.failed(folder, kind: .fileSystem, message: message)
        continue
      }
      let file = item.label
      do {
        let header = try ImageDecoder.validate(contentsOf: file, options: options)
        var outcome = ItemOutcome(source: file)
        outcome.record(header)
        outcome.bytes = Int64(FileStatus.of(file)?.size ?? 0)
        report.succeeded(line: "\(file): OK", fields: outcome.jsonFields)
      } catch {
        let (kind, message) = LocalItem.describe(error)
        report.failed(file, kind: kind, message: message)
      }
    }
    return report.finish()
  }
}
