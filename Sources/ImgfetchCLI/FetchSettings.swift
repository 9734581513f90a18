import FoundationEssentials
import ImageCodecs
import ParseFetch
import Thumbnails

/// The network side of the default command (`imgfetch [options] SOURCE...` and `--class`): the
/// parsed option groups turned into fetch settings, with the environment as fallback for the Parse
/// settings. Everything is checked here, before any request.
struct FetchSettings: Sendable {
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

  /// Reads and checks the settings.
  /// - Parameters:
  ///   - invocation: The parsed command line.
  ///   - environment: Reads one environment variable (the Parse settings' fallback).
  /// - Throws: ``UsageError``.
  init(_ invocation: Invocation, environment: (String) -> String?) throws(UsageError) {
    self.invocation = invocation
    for argument in invocation.operands { sources.append(try FetchSource(argument: argument)) }
    if let text = whereJSON {
      do { try ParseClient.checkWhere(text) } catch { throw UsageError("--where must be a JSON object (got \(text))") }
    }
    let needsParse = className != nil || sources.contains { $0.needsParse }
    if needsParse { parse = try invocation.parse.configuration(environment: environment) }
    cacheDirectory = invocation.cache.directory
    if let value = invocation.network.maxBytes { downloader.maximumBytes = Int64(value) }
    if let value = invocation.network.timeout { downloader.idleTimeout = value }
    if let value = invocation.network.retries { downloader.retryPolicy.maxAttempts = value + 1 }
  }
}
