import ImageCodecs
import SystemFiles

/// `imgfetch decode FILE [-o PATH|-] [--pixel-format F] [--orient] [--lenient] [--srgb]`: raw
/// pixels, row-major, no header; with `--srgb` converted to sRGB through the file's profile.
enum DecodeCommand {
  static func run(_ invocation: Invocation) throws(UsageError) -> ExitCode {
    let file = invocation.operands[0]
    let settings = invocation.decode
    // Megabytes of binary on a terminal help no one: standard output must be asked for by name.
    if settings.output == nil && StandardStream.output.isTerminal {
      throw UsageError("decode: standard output is a terminal; give -o PATH, or -o - to write the pixels there anyway")
    }
    let output = settings.output ?? "-"
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
      if settings.sRGB, let note = image.colorSpace.ignoredProfile { Console.error("\(file): \(note); treated as sRGB") }
      if settings.orient { image = try image.oriented() }
      return write(image, to: output)
    } catch {
      Console.error(error.description)
      return LocalItem.describe(error).kind.exitCode
    }
  }

  /// Whether both paths name one existing file (same device and inode, so also through a hard link
  /// or a symbolic link), as `cp` checks before it writes.
  static func isSameFile(_ first: String, _ second: String) -> Bool {
    guard let a = FileStatus.of(first), let b = FileStatus.of(second) else { return false }
    return a.isSameFile(as: b)
  }

  private static func write(_ image: Image, to output: String) -> ExitCode {
    if output == "-" {
      guard let failure = image.withUnsafeBytes({ Console.outBytes($0) }) else { return .success }
      Console.error("cannot write to standard output: \(failure.message)")
      return .fileSystem
    }
    do {
      try image.withUnsafeBytes { (raw) throws(AtomicFile.WriteError) in try AtomicFile.write(raw, to: output) }
      return .success
    } catch {
      Console.error(error.description)
      return .fileSystem
    }
  }
}
