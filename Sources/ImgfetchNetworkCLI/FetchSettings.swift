import Foundation
import ImageCodecs
import ImgfetchCLI
import ImgfetchHit
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

  /// The source a warm hit's miss resolved: the run's one object with its file, when the hand-off
  /// names this run's object, column and server (anything else is ignored: the full path asks).
  /// - Parameter file: The resolved file.
  /// - Returns: The source to fetch, or nil.
  func resolvedSource(_ file: HitHandoff.Resolved) -> FetchSource? {
    guard className == nil, sources.count == 1, case .object(let object) = sources[0],
      object.description == file.source, column == file.column, parse?.serverURL.absoluteString == file.server,
      let url = URL(string: file.fileURL)
    else { return nil }
    return .objectFile(object, .success(ParseFile(name: file.fileName, url: url)))
  }

  /// The Parse settings from options, then environment (the rules are ``ImgfetchHit/ParseSettings``',
  /// shared with the warm hit); secrets never appear in the messages.
  static func parseConfiguration(_ options: ParseOptions, environment: [String: String]) throws(UsageError)
    -> ParseConfiguration
  {
    let settings = try ParseSettings(options, environment: { environment[$0] })
    return ParseConfiguration(
      serverURL: settings.serverURL, applicationID: settings.applicationID, restAPIKey: settings.restAPIKey,
      masterKey: settings.masterKey, sessionToken: settings.sessionToken)
  }
}
