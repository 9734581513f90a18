import Foundation
import ImageCodecs
import ImgfetchCLI
import ParseFetch
import Thumbnails

/// The network side of the default command (`imgfetch [options] SOURCE...` and `--class`): the
/// parsed option groups turned into fetch settings, with the environment as fallback for the Parse
/// settings. Everything is checked here, before any request.
struct FetchSettings {
  let invocation: Invocation
  var sources: [FetchSource] = []
  var parse: ParseConfiguration?
  var cacheDirectory: String?
  var downloader = Downloader.Options()

  var className: String? { invocation.parse.className }
  var column: String? { invocation.parse.column }
  var whereJSON: String? { invocation.parse.whereJSON }
  var shard: Shard? { invocation.parse.shard }
  var thumbnail: ThumbnailOptions? { invocation.thumbnail.options }
  var decodeLimits: DecodeLimits { invocation.limits.decodeLimits }
  var jobs: Int { invocation.work.jobs }

  init(_ invocation: Invocation, environment: [String: String]) throws(UsageError) {
    self.invocation = invocation
    for argument in invocation.operands { sources.append(try FetchSource(argument: argument)) }
    if let text = whereJSON {
      let object = try? JSONSerialization.jsonObject(with: Data(text.utf8))
      guard object is [String: Any] else { throw UsageError("--where must be a JSON object (got \(text))") }
    }
    let needsParse = className != nil || sources.contains { $0.needsParse }
    if needsParse { parse = try FetchSettings.parseConfiguration(invocation.parse, environment: environment) }
    cacheDirectory = invocation.cache.directory
    if let value = invocation.network.maxBytes { downloader.maximumBytes = Int64(value) }
    if let value = invocation.network.timeout { downloader.idleTimeout = value }
    if let value = invocation.network.retries { downloader.retryPolicy.maxAttempts = value + 1 }
  }

  /// The Parse settings from options, then environment; secrets never appear in the messages.
  static func parseConfiguration(_ options: ParseOptions, environment: [String: String]) throws(UsageError)
    -> ParseConfiguration
  {
    typealias Key = ParseConfiguration.EnvironmentKey
    guard let server = options.server ?? environment[Key.serverURL] else {
      throw UsageError("Parse sources need --server URL (or PARSE_SERVER_URL)")
    }
    guard let url = URL(string: server), let scheme = url.scheme, scheme == "http" || scheme == "https",
      url.host != nil
    else { throw UsageError("--server must be an http(s) URL (got \(server))") }
    guard let appID = options.appID ?? environment[Key.applicationID] else {
      throw UsageError("Parse sources need --app-id ID (or PARSE_APPLICATION_ID)")
    }
    return ParseConfiguration(
      serverURL: url, applicationID: appID,
      restAPIKey: options.restKey ?? environment[Key.restAPIKey],
      masterKey: options.masterKey ?? environment[Key.masterKey],
      sessionToken: options.sessionToken ?? environment[Key.sessionToken])
  }
}
