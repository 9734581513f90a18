/// The one table of every option `imgfetch` knows, grouped as `--help` shows them. The parser reads
/// the whole table whatever the command, so a misspelt option is always named as such; each command
/// then says which groups apply to it (``Command/groups``).
public enum OptionGroup: String, CaseIterable, Sendable {
  /// Where Parse sources come from: server, keys, class, column.
  case parse
  /// Downloads: size, time and retry limits.
  case network
  /// The cache directory.
  case cache
  /// What is printed: paths or JSON lines, progress, quiet.
  case output
  /// How many items are worked on at once.
  case work
  /// Decode limits, for every command that reads an image.
  case limits
  /// Where sources come from besides the operands, and how folder operands are walked.
  case folders
  /// Thumbnails next to each original.
  case thumbnail
  /// `decode`'s output.
  case decode
  /// `cache gc`'s age.
  case maintenance

  /// The heading in `--help`.
  var title: String {
    switch self {
    case .parse: "Parse sources"
    case .network: "Downloads"
    case .cache: "Cache"
    case .output: "Output"
    case .work: "Work"
    case .limits: "Limits"
    case .folders: "Sources and folders"
    case .thumbnail: "Thumbnails (--thumbnail)"
    case .decode: "decode"
    case .maintenance: "cache gc"
    }
  }

  /// The options of the group, in `--help` order.
  public var specs: [OptionSpec] {
    switch self {
    case .parse:
      [
        OptionSpec("server", value: true, valueName: "URL", help: "Parse Server URL with its mount (PARSE_SERVER_URL)"),
        OptionSpec("app-id", value: true, valueName: "ID", help: "application id (PARSE_APPLICATION_ID)"),
        OptionSpec("rest-key", value: true, valueName: "KEY", help: "REST API key (PARSE_REST_API_KEY)"),
        OptionSpec("master-key", value: true, valueName: "KEY", help: "master key (PARSE_MASTER_KEY)"),
        OptionSpec(
          "session-token", value: true, valueName: "TOKEN",
          help: "session token, sent only to the Parse server (PARSE_SESSION_TOKEN)"),
        OptionSpec("column", value: true, valueName: "COL", help: "the file column of Class/objectId and --class"),
        OptionSpec("class", value: true, valueName: "C", help: "every object of class C (matching --where)"),
        OptionSpec("where", value: true, valueName: "JSON", help: "with --class: a Parse where object"),
        OptionSpec("shard", value: true, valueName: "K/N", help: "only shard K of N of the class (or of the sources)"),
        OptionSpec(
          "shard-mode", value: true, valueName: "MODE",
          help: "range (default: the server sends each shard its objectId range) or hash (every shard reads all)"),
      ]
    case .network:
      [
        OptionSpec("max-bytes", value: true, valueName: "N", help: "largest download in bytes (default 268435456)"),
        OptionSpec(
          "timeout", value: true, valueName: "S",
          help: "seconds without data before a transfer fails (default 30, at most 86400)"),
        OptionSpec(
          "min-speed", value: true, valueName: "B",
          help: "bytes/s a transfer must average over each --timeout window (default 1024, 0 none)"),
        OptionSpec(
          "max-time", value: true, valueName: "S",
          help: "seconds one request may take in all, redirects included (default 600, 0 none)"),
        OptionSpec(
          "retries", value: true, valueName: "N", help: "retries after a connection error, 5xx or 429 (default 3)"),
      ]
    case .cache:
      [
        OptionSpec(
          "cache-dir", value: true, valueName: "DIR",
          help: "cache directory (default $XDG_CACHE_HOME/imgfetch or ~/.cache/imgfetch)"),
        OptionSpec(
          "cache-max-size", value: true, valueName: "SIZE",
          help: "keep originals and thumbnails within SIZE (20G, 500M, 1.5Gi): least recently used go first"),
      ]
    case .output:
      [
        OptionSpec("json", help: "one JSON object per item instead of paths"),
        OptionSpec("quiet", short: "q", help: "print nothing but errors"),
        OptionSpec(
          "dry-run", help: "say what would be downloaded, written or removed (also cache clear, gc), doing none of it"),
        OptionSpec(
          "progress", value: true, valueName: "WHEN",
          help: "auto (a bar on a terminal, unless stdout is a pipe), always, never, json"),
      ]
    case .work:
      [OptionSpec("jobs", short: "j", value: true, valueName: "N", help: "items worked on at once (default: CPUs)")]
    case .limits:
      [
        OptionSpec(
          "max-pixels", value: true, valueName: "N",
          help: "largest accepted width x height, of each frame too (default 100000000)"),
        OptionSpec(
          "max-frames", value: true, valueName: "N", help: "most frames an animation may have (WebP, GIF; default 1000)"),
      ]
    case .folders:
      [
        OptionSpec(
          "recursive", short: "r", help: "walk the subfolders of a folder operand too (default: its top level)"),
        OptionSpec(
          "from-file", value: true, valueName: "LIST",
          help: "also the sources in LIST, one per line (- for standard input; # starts a comment)"),
      ]
    case .thumbnail:
      [
        OptionSpec(
          "thumbnail", value: true, valueName: "SIZE",
          help: "N (longest side), WxH (box), Wx (width) or xH (height) in pixels; 64,256,1024: each, one decode"),
        OptionSpec("fit", value: true, valueName: "FIT", help: "inside (default) or cover (fill the box, crop)"),
        OptionSpec(
          "crop", value: true, valueName: "ANCHOR",
          help: "with --fit cover: centre (default; also center) or attention (keep the most detailed part)"),
        OptionSpec(
          "format", value: true, valueName: "F", help: "auto (JPEG, or PNG for images with alpha), jpeg, png, webp"),
        OptionSpec(
          "quality", value: true, valueName: "Q", help: "JPEG quality 1-100 (default 85), WebP 0-100 (default 80)"),
        OptionSpec("lossless", help: "with --format webp: lossless WebP"),
        OptionSpec("progressive", help: "progressive JPEG (default: baseline)"),
        OptionSpec("chroma", value: true, valueName: "S", help: "JPEG chroma: 420 (default, halved) or 444 (full)"),
        OptionSpec(
          "background", value: true, valueName: "COLOUR",
          help: "what alpha is flattened over in a JPEG: white (default), black, gray, #rrggbb"),
        OptionSpec(
          "keep-profile", help: "keep the source's colours and embed its profile (default: convert to sRGB)"),
        OptionSpec(
          "keep-metadata", help: "keep the source's Exif, orientation set upright (default: no Exif, so no GPS)"),
        OptionSpec("filter", value: true, valueName: "F", help: "lanczos3 (default) or bilinear (faster, softer)"),
        OptionSpec("upscale", help: "enlarge images smaller than the size"),
        OptionSpec("no-rotate", help: "do not apply the EXIF orientation"),
        OptionSpec("sync", help: "flush each thumbnail to disk before renaming it into place"),
        OptionSpec(
          "output-dir", value: true, valueName: "DIR",
          help: "write thumbnails under DIR, mirroring the sources' folders, not next to the originals"),
        OptionSpec(
          "output", short: "o", value: true, valueName: "TEMPLATE",
          help: "name thumbnails as tn_%s.jpg (%s: source name less extension, %d: size); the extension sets the format"
        ),
        OptionSpec(
          "overwrite", help: "replace a file at a thumbnail's name that imgfetch did not make (default: refuse it)"),
        OptionSpec(
          "thumbnails-only",
          help: "keep no downloaded original: each is validated, thumbnailed, then removed from the cache"),
        OptionSpec("force", help: "make thumbnails again even when an up-to-date one exists (default: reuse it)"),
        OptionSpec(
          "placeholder", value: true, valueName: "KIND",
          help: "thumbhash: each thumbnail's ThumbHash (a ~25-byte blurred preview) in the --json line"),
      ]
    case .decode:
      [
        OptionSpec(
          "output", short: "o", value: true, valueName: "PATH",
          help: "write to PATH atomically (not the input), or - for standard output"),
        OptionSpec(
          "pixel-format", value: true, valueName: "F",
          help: "auto (rgba8 for PNG, rgb8/gray8 for JPEG, rgb8/rgba8 for WebP and GIF), source, native, rgba8, rgb8, gray8"),
        OptionSpec("orient", help: "apply the EXIF orientation"),
        OptionSpec("srgb", help: "convert the pixels to sRGB through the file's colour profile"),
        OptionSpec("lenient", help: "return what decodes from a damaged file instead of failing"),
      ]
    case .maintenance:
      [
        OptionSpec(
          "max-age", value: true, valueName: "S", help: "remove .part and temporary files older than S (default 86400)"),
        OptionSpec(
          "max-size", value: true, valueName: "SIZE",
          help: "also evict least recently used originals, with their thumbnails, down to SIZE"),
      ]
    }
  }

  /// The options of every command, listed last in `--help`.
  public static let generalSpecs = [
    OptionSpec("help", short: "h", help: "this text"), OptionSpec("version", help: "print the version and exit"),
  ]

  /// Every option, for the parser.
  /// (`-o`/`--output` is in two groups: a thumbnail's name template, and `decode`'s output; the
  /// parser reads it once.)
  public static let allSpecs: [OptionSpec] = (allCases.flatMap(\.specs) + generalSpecs).reduce(into: []) {
    specs, spec in
    if !specs.contains(where: { $0.name == spec.name }) { specs.append(spec) }
  }

  /// The group an option belongs to.
  static func group(of name: String) -> OptionGroup? { allCases.first { $0.specs.contains { $0.name == name } } }
}
