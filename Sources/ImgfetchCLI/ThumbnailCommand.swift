import ImageCodecs
import Synchronization
import Thumbnails

#if canImport(Glibc)
  import Glibc
#endif

/// `imgfetch --thumbnail N|WxH [options] FILE...`: makes (or reuses) a thumbnail next to each file
/// and prints its path, or with `--json` one object per line.
enum ThumbnailCommand {
  static let specs: [OptionSpec] = [
    OptionSpec("thumbnail", value: true, help: "N (longest side) or WxH (box) in pixels"),
    OptionSpec(
      "fit", value: true, help: "inside (default) or cover (fill the box, crop the centre)"),
    OptionSpec(
      "format", value: true, help: "auto (default: JPEG, or PNG for images with alpha), jpeg, png"),
    OptionSpec("quality", value: true, help: "JPEG quality 1-100 (default 85)"),
    OptionSpec("filter", value: true, help: "lanczos3 (default) or bilinear (faster, softer)"),
    OptionSpec("upscale", help: "enlarge images smaller than the size (default: keep their size)"),
    OptionSpec("no-rotate", help: "do not apply the EXIF orientation"),
    OptionSpec(
      "jobs", short: "j", value: true, help: "files worked on at once (default: number of CPUs)"),
    OptionSpec("json", help: "one JSON object per line instead of paths"),
    OptionSpec("sync", help: "flush each thumbnail to disk before renaming it into place"),
    OptionSpec(
      "every-scan",
      help: "decode every scan of progressive JPEGs, also those a 1/8-scale thumbnail does not need"),
    OptionSpec(
      "max-pixels", value: true, help: "largest accepted width x height (default 100000000)"),
  ]

  /// The usage lines for `--help`.
  static let usage = """
      imgfetch --thumbnail N|WxH [--fit inside|cover] [--format auto|jpeg|png] [--quality Q]
               [--filter lanczos3|bilinear] [--upscale] [--no-rotate] [--jobs N] [--json]
               [--sync] [--every-scan] FILE...
                                   write <FILE>.thumb-<size>.<ext> next to each FILE (reused
                                   while up to date) and print its path
    """

  /// Whether the arguments ask for thumbnails (the default command form with `--thumbnail`).
  static func handles(_ arguments: [String]) -> Bool {
    arguments.contains { $0 == "--thumbnail" || $0.hasPrefix("--thumbnail=") }
  }

  /// The text of `imgfetch --thumbnail --help`: usage, options and the file naming rule.
  static var helpText: String {
    let options = specs.map { spec in
      let name = "--\(spec.name)" + (spec.takesValue ? " \(spec.name == "thumbnail" ? "SIZE" : "VALUE")" : "")
      return "  " + name + String(repeating: " ", count: max(1, 21 - name.count)) + spec.help
    }
    return
      (["Usage:", usage, "", "Thumbnail options:"] + options + [
        "",
        "Files: next to each FILE, <FILE>.thumb-<size>.<ext>: photo.jpg gives photo.jpg.thumb-256.jpg,",
        "photo.jpg.thumb-320x200.jpg, or photo.jpg.thumb-320x200-cover.jpg with --fit cover. An existing",
        "thumbnail is reused (\"reused\": true) when it is not older than FILE and was made from the",
        "same FILE (size, time) with the same options; otherwise it is rebuilt.",
        "--json prints {source, thumbnailPath, width, height, format, reused} per FILE, in order,",
        "or {source, error} for a FILE that failed (the reason also goes to standard error).",
        "Exit codes: 0 all done, 1 usage, 2 some files failed, 4 every file failed as an invalid image,",
        "130 interrupted (thumbnails in progress are finished, no partial file is left).",
      ]).joined(separator: "\n")
  }

  static func run(_ arguments: [String]) throws(UsageError) -> ExitCode {
    if arguments.contains("--help") || arguments.contains("-h") {
      Console.out(helpText)
      return .success
    }
    let parsed = try parseArguments(arguments, specs: specs)
    let options = try thumbnailOptions(parsed)
    let jobs = try jobCount(parsed)
    guard !parsed.positionals.isEmpty else {
      throw UsageError("--thumbnail needs at least one FILE")
    }
    let json = parsed.has("json")
    let outcome = Mutex((failed: 0, invalid: 0))
    // Thumbnails made by imgfetch are not thumbnailed again (`imgfetch --thumbnail 256 *.jpg` twice).
    let files = parsed.positionals.filter { file in
      guard file.contains(".thumb-"), ThumbnailStamp.read(fromFileAt: file) != nil else { return true }
      Console.error("\(file): skipped: it is a thumbnail made by imgfetch")
      return false
    }
    if files.isEmpty { return .success }
    // Ctrl-C or SIGTERM: finish the thumbnails in progress (no partial files), start no more.
    let interrupted = Atomic(false)
    let handler = InterruptHandler { interrupted.store(true, ordering: .relaxed) }
    defer { withExtendedLifetime(handler) {} }
    let report: @Sendable (Int, Result<ThumbnailResult, ThumbnailError>) -> Void = { index, result in
      switch result {
      case .success(let thumbnail):
        Console.out(json ? jsonLine(fields(thumbnail, source: files[index])) : thumbnail.path)
      case .failure(let error):
        Console.error(error.description)
        if json { Console.out(jsonLine([("source", .string(files[index])), ("error", .string(error.description))])) }
        outcome.withLock {
          $0.failed += 1
          if case .decode = error { $0.invalid += 1 }
        }
      }
    }
    Thumbnailer(options: options).makeThumbnails(
      forFilesAt: files, jobs: jobs, isCancelled: { interrupted.load(ordering: .relaxed) }, onResult: report)
    if interrupted.load(ordering: .relaxed) { return .interrupted }
    let (failed, invalid) = outcome.withLock { $0 }
    if failed == 0 { return .success }
    return invalid == files.count ? .invalidImage : .someItemsFailed
  }

  static func fields(_ thumbnail: ThumbnailResult, source: String) -> [(String, JSONValue)] {
    [
      ("source", .string(source)),
      ("thumbnailPath", .string(thumbnail.path)),
      ("width", .int(thumbnail.width)),
      ("height", .int(thumbnail.height)),
      ("format", .string(thumbnail.format.rawValue)),
      ("reused", .bool(thumbnail.reused)),
    ]
  }

  static func thumbnailOptions(_ parsed: ParsedArguments) throws(UsageError) -> ThumbnailOptions {
    let sizeText = parsed.value("thumbnail") ?? ""
    guard let size = ThumbnailSize(parsing: sizeText) else {
      throw UsageError(
        "--thumbnail needs N or WxH with numbers from 1 to \(ThumbnailSize.maximumSide) (got \(sizeText))"
      )
    }
    var options = ThumbnailOptions(size: size, limits: try CodecOptions.limits(parsed))
    if let fit = parsed.value("fit") {
      guard let value = ThumbnailFit(rawValue: fit) else {
        throw UsageError("--fit must be inside or cover (got \(fit))")
      }
      options.fit = value
    }
    if let filter = parsed.value("filter") {
      guard let value = ResampleFilter(rawValue: filter) else {
        throw UsageError("--filter must be lanczos3 or bilinear (got \(filter))")
      }
      options.filter = value
    }
    var format = ThumbnailFormat.automatic
    if let choice = parsed.value("format") {
      guard let value = ThumbnailFormat.Choice(rawValue: choice) else {
        throw UsageError("--format must be auto, jpeg or png (got \(choice))")
      }
      format.choice = value
    }
    if let text = parsed.value("quality") {
      format.jpegQuality = try NumericOption.integer(text, option: "quality", in: NumericOption.quality)
    }
    options.format = format
    options.allowsUpscaling = parsed.has("upscale")
    options.appliesOrientation = !parsed.has("no-rotate")
    options.flushesToDisk = parsed.has("sync")
    options.decodesEveryScan = parsed.has("every-scan")
    return options
  }

  static func jobCount(_ parsed: ParsedArguments) throws(UsageError) -> Int {
    guard let text = parsed.value("jobs") else {
      return min(NumericOption.jobs.upperBound, max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
    return try NumericOption.integer(text, option: "jobs", in: NumericOption.jobs)
  }
}
