import ImageCodecs
import SystemFiles
import Thumbnails

/// A group of options read from the parsed command line: `init` reads the values and checks each
/// one (numbers within their ranges, names among the choices), `validate()` checks how they go
/// together.
public protocol OptionValues: Sendable {
  /// Reads and checks the group's values.
  /// - Parameter parsed: The whole command line, parsed against ``OptionGroup/allSpecs``.
  /// - Throws: ``UsageError`` naming the option and the value given.
  init(_ parsed: ParsedArguments) throws(UsageError)
  /// Checks the values together.
  /// - Throws: ``UsageError`` saying which options conflict.
  func validate() throws(UsageError)
}

extension OptionValues {
  /// Nothing to check across options by default.
  public func validate() throws(UsageError) {}
}

/// `--json`, `--quiet`, `--progress`: what is printed, the same for every source.
public struct OutputOptions: OptionValues {
  /// One JSON object per item.
  public var json = false
  /// Nothing but errors.
  public var quiet = false
  /// Where progress goes.
  public var progress = ProgressMode.auto

  /// Reads the group.
  public init(_ parsed: ParsedArguments) throws(UsageError) {
    json = parsed.has("json")
    quiet = parsed.has("quiet")
    if let text = parsed.value("progress") { progress = try ProgressMode(parsing: text) }
  }

  /// The progress mode in effect (`--quiet` draws nothing).
  public var effectiveProgress: ProgressMode { quiet ? .never : progress }
}

/// `--jobs`.
public struct WorkOptions: OptionValues {
  /// Items at once.
  public var jobs: Int

  /// Reads the group.
  public init(_ parsed: ParsedArguments) throws(UsageError) {
    if let text = parsed.value("jobs") {
      jobs = try NumericOption.integer(text, option: "jobs", in: NumericOption.jobs)
    } else {
      jobs = min(NumericOption.jobs.upperBound, ProcessEnvironment.onlineProcessors)
    }
  }
}

/// `--max-pixels`, `--max-frames`.
public struct LimitOptions: OptionValues {
  /// The decode limits.
  public var decodeLimits = DecodeLimits.standard

  /// Reads the group.
  public init(_ parsed: ParsedArguments) throws(UsageError) {
    if let text = parsed.value("max-pixels") {
      decodeLimits.maxPixels = try NumericOption.integer(text, option: "max-pixels", in: NumericOption.maxPixels)
    }
    if let text = parsed.value("max-frames") {
      decodeLimits.maxFrames = try NumericOption.integer(text, option: "max-frames", in: NumericOption.maxFrames)
    }
  }
}

/// `--thumbnail` and the options that shape it.
public struct ThumbnailRequest: OptionValues {
  /// The thumbnail settings, or `nil` without `--thumbnail`.
  public var options: ThumbnailOptions?
  /// Every size asked for (`--thumbnail 64,256,1024`), in the order given; `options.size` is the
  /// first. Empty without `--thumbnail`.
  public var sizes: [ThumbnailSize] = []
  private var orphans: [String] = []

  /// Reads the group.
  public init(_ parsed: ParsedArguments) throws(UsageError) {
    // -o is also decode's; the command line checks it goes with --thumbnail (Invocation).
    let shaping = OptionGroup.thumbnail.specs.map(\.name).filter { $0 != "thumbnail" && $0 != "output" }
    guard let sizeText = parsed.value("thumbnail") else {
      orphans = parsed.given.filter { shaping.contains($0) }
      return
    }
    var sizes: [ThumbnailSize] = []
    for text in sizeText.split(separator: ",", omittingEmptySubsequences: false) {
      guard let size = ThumbnailSize(parsing: String(text)) else {
        throw UsageError(
          "--thumbnail needs a size: N, WxH, Wx or xH, numbers from 1 to \(ThumbnailSize.maximumSide) (got \(sizeText))"
        )
      }
      if sizes.contains(size) { throw UsageError("--thumbnail names \(size) twice (got \(sizeText))") }
      sizes.append(size)
    }
    self.sizes = sizes
    var options = ThumbnailOptions(size: sizes[0], limits: try LimitOptions(parsed).decodeLimits)
    options.replacesUnstampedFiles = parsed.has("overwrite")
    options.remakesCurrentThumbnails = parsed.has("force")
    options.keepsCachedOriginal = !parsed.has("thumbnails-only")
    if let fit = parsed.value("fit") {
      guard let value = ThumbnailFit(rawValue: fit) else {
        throw UsageError("--fit must be inside or cover (got \(fit))")
      }
      options.fit = value
    }
    if let crop = parsed.value("crop") {
      guard let value = ThumbnailCropAnchor(parsing: crop) else {
        throw UsageError("--crop must be centre (or center) or attention (got \(crop))")
      }
      guard options.fit == .cover else { throw UsageError("--crop needs --fit cover (only a cover fit crops)") }
      options.cropAnchor = value
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
        throw UsageError("--format must be auto, jpeg, png or webp (got \(choice))")
      }
      format.choice = value
    }
    if let text = parsed.value("quality") {
      if format.choice == .webp {
        format.webpQuality = try NumericOption.integer(text, option: "quality", in: 0...100)
      } else {
        format.jpegQuality = try NumericOption.integer(text, option: "quality", in: NumericOption.quality)
      }
    }
    if parsed.has("lossless") {
      guard format.choice == .webp else { throw UsageError("--lossless goes with --format webp") }
      format.webpLossless = true
    }
    if let text = parsed.value("output") {
      let template: ThumbnailNameTemplate
      do { template = try ThumbnailNameTemplate(text) } catch {
        throw UsageError("--output: \(Self.reason(error))")
      }
      if let choice = parsed.value("format"), format.choice != .automatic, format.choice != template.format {
        throw UsageError("--format \(choice) and --output \(text) name different formats")
      }
      if template.isAbsolute && parsed.value("output-dir") != nil {
        throw UsageError("--output \(text) is absolute; with --output-dir it must be relative to that folder")
      }
      format.choice = template.format
      options.nameTemplate = template
    }
    if parsed.has("progressive") || parsed.value("chroma") != nil {
      let option = parsed.has("progressive") ? "--progressive" : "--chroma"
      guard format.choice == .jpeg || format.choice == .automatic else {
        throw UsageError("\(option) goes with JPEG thumbnails (the format is \(format.choice.rawValue))")
      }
    }
    format.jpegProgressive = parsed.has("progressive")
    if let chroma = parsed.value("chroma") {
      guard chroma == "444" || chroma == "420" else { throw UsageError("--chroma must be 444 or 420 (got \(chroma))") }
      format.jpegFullChroma = chroma == "444"
    }
    if let text = parsed.value("background") {
      guard let colour = ThumbnailBackground(parsing: text) else {
        throw UsageError("--background must be white, black, gray, #rrggbb or #rgb (got \(text))")
      }
      options.background = colour
    }
    options.format = format
    options.allowsUpscaling = parsed.has("upscale")
    options.appliesOrientation = !parsed.has("no-rotate")
    options.flushesToDisk = parsed.has("sync")
    options.colorSpace = parsed.has("keep-profile") ? .source : .sRGB
    options.keepsExif = parsed.has("keep-metadata")
    if let kind = parsed.value("placeholder") {
      guard kind == "thumbhash" else { throw UsageError("--placeholder must be thumbhash (got \(kind))") }
      options.makesThumbHash = true
    }
    self.options = options
  }

  /// A thumbnail error's message without the library's prefix.
  static func reason(_ error: ThumbnailError) -> String {
    if case .invalidOptions(let message) = error { return message }
    return error.description
  }

  /// Options that shape a thumbnail mean nothing without `--thumbnail`.
  public func validate() throws(UsageError) {
    if let first = orphans.first { throw UsageError("--\(first) goes with --thumbnail SIZE") }
  }
}

/// `decode`'s `-o`, `--pixel-format`, `--orient`, `--lenient`.
public struct DecodeOutputOptions: OptionValues {
  /// `-o` as given (`nil`: standard output, refused on a terminal).
  public var output: String?
  /// The pixel format asked for; `nil` is `auto`.
  public var pixelFormat: PixelFormatRequest?
  /// Apply the EXIF orientation.
  public var orient = false
  /// Keep what decodes from a damaged file.
  public var lenient = false
  /// Convert the pixels to sRGB (`--srgb`).
  public var sRGB = false

  /// Reads the group.
  public init(_ parsed: ParsedArguments) throws(UsageError) {
    output = parsed.value("output")
    orient = parsed.has("orient")
    lenient = parsed.has("lenient")
    sRGB = parsed.has("srgb")
    if let name = parsed.value("pixel-format"), name != "auto" {
      guard let request = PixelFormatRequest(rawValue: name) else {
        throw UsageError("--pixel-format must be auto, source, native, rgba8, rgb8 or gray8 (got \(name))")
      }
      pixelFormat = request
    }
  }
}

/// The Parse options as given; ``configuration(environment:)`` turns them into a configuration (the
/// environment fills in what is missing).
public struct ParseOptions: OptionValues {
  /// `--server`, `--app-id`, `--rest-key`, `--master-key`, `--session-token`, as given.
  public var server, appID, restKey, masterKey, sessionToken: String?
  /// `--column`.
  public var column: String?
  /// `--class`.
  public var className: String?
  /// `--where`, as given.
  public var whereJSON: String?
  /// `--shard K/N`.
  public var shard: Shard?

  /// Reads the group.
  public init(_ parsed: ParsedArguments) throws(UsageError) {
    server = parsed.value("server")
    appID = parsed.value("app-id")
    restKey = parsed.value("rest-key")
    masterKey = parsed.value("master-key")
    sessionToken = parsed.value("session-token")
    column = parsed.value("column")
    className = parsed.value("class")
    whereJSON = parsed.value("where")
    if let text = parsed.value("shard") { shard = try Shard(parsing: text, mode: parsed.value("shard-mode")) }
    shardModeWithoutShard = parsed.value("shard-mode") != nil && shard == nil
  }

  private var shardModeWithoutShard = false

  /// `--where` filters a class walk.
  public func validate() throws(UsageError) {
    if whereJSON != nil && className == nil { throw UsageError("--where goes with --class") }
    if className != nil && column == nil { throw UsageError("--class needs --column NAME") }
    if shardModeWithoutShard { throw UsageError("--shard-mode goes with --shard") }
  }
}

/// `--max-bytes`, `--timeout`, `--min-speed`, `--max-time`, `--retries`, each checked against its
/// finite range.
public struct NetworkOptions: OptionValues {
  /// Largest download in bytes, when given.
  public var maxBytes: Int?
  /// Idle timeout in seconds, when given.
  public var timeout: Double?
  /// Speed floor in bytes a second (0: none), when given.
  public var minSpeed: Int?
  /// Longest time one request may take in seconds (0: no limit), when given.
  public var maxTime: Double?
  /// Retries, when given.
  public var retries: Int?

  /// Reads the group.
  public init(_ parsed: ParsedArguments) throws(UsageError) {
    if let text = parsed.value("max-bytes") {
      maxBytes = try NumericOption.integer(text, option: "max-bytes", in: NumericOption.maxBytes)
    }
    if let text = parsed.value("timeout") {
      timeout = try NumericOption.seconds(text, option: "timeout", in: NumericOption.timeout)
    }
    if let text = parsed.value("min-speed") {
      minSpeed = try NumericOption.integer(text, option: "min-speed", in: NumericOption.minSpeed)
    }
    if let text = parsed.value("max-time") {
      maxTime = try NumericOption.seconds(text, option: "max-time", in: NumericOption.maxTime)
    }
    if let text = parsed.value("retries") {
      retries = try NumericOption.integer(text, option: "retries", in: NumericOption.retries)
    }
  }
}

/// `--cache-dir`, `--cache-max-size`, and `cache gc --max-age` and `--max-size`.
public struct CacheOptions: OptionValues {
  /// The cache directory, when given.
  public var directory: String?
  /// The budget of a fetch's cache in bytes (entries and their thumbnails), when given.
  public var maxSize: Int64?
  /// `gc`'s age in seconds.
  public var maxAge: Double = 86_400
  /// `gc`'s size to evict down to, when given.
  public var gcMaxSize: Int64?

  /// Reads the group.
  public init(_ parsed: ParsedArguments) throws(UsageError) {
    directory = parsed.value("cache-dir")
    if let text = parsed.value("cache-max-size") {
      maxSize = try NumericOption.byteSize(text, option: "cache-max-size", in: NumericOption.cacheSize)
    }
    if let text = parsed.value("max-age") {
      maxAge = try NumericOption.seconds(text, option: "max-age", in: NumericOption.maxAge)
    }
    if let text = parsed.value("max-size") {
      gcMaxSize = try NumericOption.byteSize(text, option: "max-size", in: 0...NumericOption.cacheSize.upperBound)
    }
  }
}
