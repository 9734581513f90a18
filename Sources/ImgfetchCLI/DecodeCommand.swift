import ImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

/// `imgfetch decode FILE [--pixel-format F] [--orient] [-o PATH|-]`: raw pixels, row-major, no header.
enum DecodeCommand {
  static let specs: [OptionSpec] = [
    OptionSpec(
      "pixel-format", value: true,
      help: "auto (default: rgba8 for PNG, rgb8 or gray8 for JPEG), source, native, rgba8, rgb8, gray8"),
    OptionSpec("orient", help: "apply the EXIF orientation"),
    OptionSpec("output", short: "o", value: true, help: "write to PATH (atomically) or - for standard output"),
    OptionSpec("lenient", help: "return what decodes from a damaged file instead of failing"),
    OptionSpec("max-pixels", value: true, help: "largest accepted width x height (default 100000000)"),
  ]

  static func run(_ arguments: [String]) throws(UsageError) -> ExitCode {
    let parsed = try parseArguments(arguments, specs: specs)
    guard parsed.positionals.count == 1 else { throw UsageError("decode needs exactly one FILE") }
    let file = parsed.positionals[0]
    let output = parsed.value("output") ?? "-"
    // Megabytes of binary on a terminal help no one: standard output must be asked for by name.
    if parsed.value("output") == nil && isatty(STDOUT_FILENO) == 1 {
      throw UsageError("decode: standard output is a terminal; give -o PATH, or -o - to write the pixels there anyway")
    }
    if output != "-", isSameFile(file, output) {
      throw UsageError("decode: \(output) is \(file) itself; refusing to overwrite the input")
    }
    var options = DecodeOptions(limits: try CodecOptions.limits(parsed))
    options.strictness = parsed.has("lenient") ? .lenient : .strict
    let formatName = parsed.value("pixel-format") ?? "auto"
    if formatName != "auto" {
      guard let request = PixelFormatRequest(rawValue: formatName) else {
        throw UsageError("--pixel-format must be auto, source, native, rgba8, rgb8 or gray8 (got \(formatName))")
      }
      options.pixelFormat = request
    }
    do {
      if formatName == "auto" {
        // djpeg and libpng reference layouts: every PNG as RGBA8, JPEG as RGB8 (gray8 if gray).
        let header = try ImageDecoder.probe(contentsOf: file, limits: options.limits)
        options.pixelFormat = header.format == .png ? .rgba8 : .source
      }
      var image = try ImageDecoder.decode(contentsOf: file, options: options)
      if parsed.has("orient") { image = image.oriented() }
      return write(image, to: output)
    } catch {
      Console.error(error.description)
      return .invalidImage
    }
  }

  /// Whether both paths name one existing file (same device and inode, so also through a hard link
  /// or a symbolic link), as `cp` checks before it writes.
  static func isSameFile(_ first: String, _ second: String) -> Bool {
    var a = stat()
    var b = stat()
    guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino
  }

  private static func write(_ image: Image, to output: String) -> ExitCode {
    if output == "-" {
      let written = image.withUnsafeBytes { Console.outBytes($0) }
      if !written { Console.error("cannot write to standard output") }
      return written ? .success : .invalidImage
    }
    do {
      try image.withUnsafeBytes { (raw) throws(AtomicFile.WriteError) in try AtomicFile.write(raw, to: output) }
      return .success
    } catch {
      Console.error(error.description)
      return .invalidImage
    }
  }
}
