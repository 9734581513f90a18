import ImageCodecs
import SystemFiles

/// `imgfetch decode FILE [-o PATH|-] [--pixel-format F] [--orient] [--lenient] [--srgb]`: raw
/// pixels, row-major, no header; with `--srgb` converted to sRGB through the file's profile.
///
/// The pixels are the result; errors go to standard error. With `--json` (which needs `-o PATH`, as
/// the pixels would otherwise share standard output with it), one object on standard output says
/// what was written: `source`, `output`, `pixelFormat`, `width`, `height`, `bytesPerRow`,
/// `outputBytes`; or, for a failure, `source` and `error` as every command's JSON does.
enum DecodeCommand {
  static func run(_ invocation: Invocation) throws(UsageError) -> ExitCode {
    let file = invocation.operands[0]
    let settings = invocation.decode
    // Megabytes of binary on a terminal help no one: standard output must be asked for by name.
    if settings.output == nil && StandardStream.output.isTerminal {
      throw UsageError("decode: standard output is a terminal; give -o PATH, or -o - to write the pixels there anyway")
    }
    let output = settings.output ?? "-"
    let json = invocation.output.json
    if json && output == "-" {
      throw UsageError("decode: --json goes with -o PATH (the pixels would share standard output with the JSON)")
    }
    var report = FileReport(json: json, quiet: true)
    if output != "-", isSameFile(file, output) {
      throw UsageError("decode: \(output) is \(file) itself; refusing to overwrite the input")
    }
    var options = DecodeOptions(limits: invocation.limits.decodeLimits)
    options.strictness = settings.lenient ? .lenient : .strict
    options.colorSpace = settings.sRGB ? .sRGB : .source
    do {
      if let request = settings.pixelFormat {
        options.pixelFormat = request
      } else {
        // djpeg and libpng reference layouts: every PNG as RGBA8, JPEG as RGB8 (gray8 if gray).
        let header = try ImageDecoder.probe(contentsOf: file, limits: options.limits)
        options.pixelFormat = header.format == .png ? .rgba8 : .source
      }
      var image = try ImageDecoder.decode(contentsOf: file, options: options)
      if settings.sRGB, let note = image.colorSpace.ignoredProfile {
        Console.error("\(file): \(note); treated as sRGB")
      }
      if settings.orient { image = try image.oriented() }
      if let failure = write(image, to: output) {
        report.failed(file, kind: .fileSystem, message: failure)
      } else {
        report.succeeded(line: "", fields: fields(file: file, image: image, output: output))
      }
    } catch {
      let (kind, message) = LocalItem.describe(error)
      report.failed(file, kind: kind, message: message)
    }
    return report.finish()
  }

  /// The `--json` object of a decode written to `output`.
  static func fields(file: String, image: Image, output: String) -> [(String, JSONValue)] {
    [
      ("source", .string(file)), ("output", .string(output)),
      ("pixelFormat", .string(image.pixelFormat.description)), ("width", .int(image.width)),
      ("height", .int(image.height)), ("bytesPerRow", .int(image.bytesPerRow)), ("outputBytes", .int(image.byteCount)),
    ]
  }

  /// Whether both paths name one existing file (same device and inode, so also through a hard link
  /// or a symbolic link), as `cp` checks before it writes.
  static func isSameFile(_ first: String, _ second: String) -> Bool {
    guard let a = FileStatus.of(first), let b = FileStatus.of(second) else { return false }
    return a.isSameFile(as: b)
  }

  /// Writes the pixels.
  /// - Returns: nil, or why they could not be written.
  private static func write(_ image: Image, to output: String) -> String? {
    if output == "-" {
      guard let failure = image.withUnsafeBytes({ Console.outBytes($0) }) else { return nil }
      return "cannot write to standard output: \(failure.message)"
    }
    do {
      // Writing into a FIFO or a device (`-o /dev/stdout`, a pipe) is decode's own feature.
      try image.withUnsafeBytes { (raw) throws(AtomicFile.WriteError) in
        try AtomicFile.write(raw, to: output, writesIntoSpecialFiles: true)
      }
      return nil
    } catch {
      return error.description
    }
  }
}
