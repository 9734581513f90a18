import Foundation
import ImageCodecs
import ParseFetch
import Thumbnails

/// The options of the default command form (`imgfetch [options] SOURCE...` and `--class`), read
/// from the command line with the environment as fallback for the Parse settings.
struct FetchSettings {
  static let specs: [OptionSpec] =
    [
      OptionSpec(
        "server", value: true, help: "Parse Server URL with its mount, e.g. http://host/parse (PARSE_SERVER_URL)"),
      OptionSpec("app-id", value: true, help: "application id (PARSE_APPLICATION_ID)"),
      OptionSpec("rest-key", value: true, help: "REST API key (PARSE_REST_API_KEY)"),
      OptionSpec("master-key", value: true, help: "master key (PARSE_MASTER_KEY)"),
      OptionSpec(
        "session-token", value: true, help: "session token, also sent with file downloads (PARSE_SESSION_TOKEN)"),
      OptionSpec("column", value: true, help: "the file column of Class/objectId sources and of --class"),
      OptionSpec("class", value: true, help: "fetch every object of this class that has the column"),
      OptionSpec("where", value: true, help: "with --class: a Parse where JSON to filter the objects"),
      OptionSpec("shard", value: true, help: "K/N: only shard K of N of the class (or of the sources)"),
      OptionSpec(
        "shard-mode", value: true,
        help: "range (default: the server sends each shard its objectId range) or hash (every shard reads all)"),
      OptionSpec(
        "cache-dir", value: true, help: "cache directory (default $XDG_CACHE_HOME/imgfetch or ~/.cache/imgfetch)"),
      OptionSpec("max-bytes", value: true, help: "largest download in bytes (default 268435456)"),
      OptionSpec("timeout", value: true, help: "seconds without data before a transfer fails (default 30)"),
      OptionSpec("retries", value: true, help: "retries after a connection error, 5xx or 429 (default 3)"),
      OptionSpec("quiet", short: "q", help: "print nothing but errors"),
      OptionSpec("progress", value: true, help: "auto (default: a bar on a terminal), always, never, json"),
    ] + ThumbnailCommand.specs.filter { $0.name != "sync" && $0.name != "every-scan" && $0.name != "json" }
    + [OptionSpec("json", help: "one JSON object per finished item instead of paths")]

  var sources: [FetchSource] = []
  var className: String?
  var column: String?
  var whereJSON: String?
  var shard: Shard?
  var parse: ParseConfiguration?
  var cacheDirectory: URL?
  var downloader = Downloader.Options()
  var thumbnail: ThumbnailOptions?
  var decodeLimits = DecodeLimits.standard
  var jobs = 1
  var json = false
  var quiet = false
  var progress = ProgressMode.auto

  init(_ parsed: ParsedArguments, environment: [String: String]) throws(UsageError) {
    sources = parsed.positionals.map(FetchSource.init(argument:))
    className = parsed.value("class")
    column = parsed.value("column")
    whereJSON = parsed.value("where")
    if className == nil && sources.isEmpty { throw UsageError("nothing to fetch: give SOURCE... or --class") }
    if className != nil && !sources.isEmpty { throw UsageError("give either SOURCE... or --class, not both") }
    if whereJSON != nil && className == nil { throw UsageError("--where goes with --class") }
    let needsParse = className != nil || sources.contains { $0.needsParse }
    if needsParse && column == nil { throw UsageError("Parse sources need --column NAME") }
    if let text = parsed.value("shard") { shard = try Shard(parsing: text, mode: parsed.value("shard-mode")) }
    if parsed.value("shard-mode") != nil && shard == nil { throw UsageError("--shard-mode goes with --shard") }
    if needsParse { parse = try FetchSettings.parseConfiguration(parsed, environment: environment) }
    cacheDirectory = parsed.value("cache-dir").map { URL(fileURLWithPath: $0) }
    if let text = parsed.value("max-bytes") {
      downloader.maximumBytes = Int64(try NumericOption.integer(text, option: "max-bytes", in: NumericOption.maxBytes))
    }
    if let text = parsed.value("timeout") {
      downloader.idleTimeout = try NumericOption.seconds(text, option: "timeout", in: NumericOption.timeout)
    }
    if let text = parsed.value("retries") {
      downloader.retryPolicy.maxAttempts =
        try NumericOption.integer(text, option: "retries", in: NumericOption.retries) + 1
    }
    decodeLimits = try CodecOptions.limits(parsed)
    if parsed.value("thumbnail") != nil {
      var options = try ThumbnailCommand.thumbnailOptions(parsed)
      options.limits = decodeLimits
      thumbnail = options
    }
    jobs = try ThumbnailCommand.jobCount(parsed)
    json = parsed.has("json")
    quiet = parsed.has("quiet")
    if let text = parsed.value("progress") { progress = try ProgressMode(parsing: text) }
  }

  /// The Parse settings from options, then environment; secrets never appear in the messages.
  static func parseConfiguration(_ parsed: ParsedArguments, environment: [String: String]) throws(UsageError)
    -> ParseConfiguration
  {
    typealias Key = ParseConfiguration.EnvironmentKey
    guard let server = parsed.value("server") ?? environment[Key.serverURL] else {
      throw UsageError("Parse sources need --server URL (or PARSE_SERVER_URL)")
    }
    guard let url = URL(string: server), let scheme = url.scheme, scheme == "http" || scheme == "https",
      url.host != nil
    else { throw UsageError("--server must be an http(s) URL (got \(server))") }
    guard let appID = parsed.value("app-id") ?? environment[Key.applicationID] else {
      throw UsageError("Parse sources need --app-id ID (or PARSE_APPLICATION_ID)")
    }
    return ParseConfiguration(
      serverURL: url, applicationID: appID,
      restAPIKey: parsed.value("rest-key") ?? environment[Key.restAPIKey],
      masterKey: parsed.value("master-key") ?? environment[Key.masterKey],
      sessionToken: parsed.value("session-token") ?? environment[Key.sessionToken])
  }
}
