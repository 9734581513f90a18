import CRestRequest
import FoundationEssentials
import ImageCodecs
import ImgfetchCLI
import ImgfetchVersion
import ParseEssentials
import SystemFiles
import Thumbnails

#if canImport(Glibc)
  import Glibc
#endif

/// The warm hit of one Parse object (`imgfetch Class/objectId --column COL [--thumbnail …]` when
/// the cache already holds the file), served by `imgfetch` itself: no Foundation, no second
/// process, libcurl loaded (dlopen) for the one request it needs, the object JSON, through its C API
/// (``CRestRequest``); then the same cache lookup, thumbnail stamp, header and output as any hit,
/// so a hit starts, asks and answers in about the time of a bare `curl` of the object JSON
/// (issue 10.5). imgfetch-fetch runs the same code when it is called directly (or handed an
/// untried run), and records the hint that lets `imgfetch` serve the next hit alone.
///
/// Anything it does not handle exactly as the full path would is handed back untouched: a redirect
/// (URLSession follows it and drops the Parse keys on another origin), any answer but a 2xx Parse
/// object whose column is a File, a connection failure, a cache directory that is missing or not
/// yet a cache. The full path then makes the request itself, with its retries and its error
/// messages. A miss hands back the resolved file, so the full path downloads it without asking
/// for the object again: one object request either way (``HitHandoff``).
package enum WarmHit {
  /// What came of the attempt.
  package enum Outcome {
    /// A hit on the entry of the file `fileName`: printed, with this exit code.
    case served(ExitCode, fileName: String)
    /// The object's file, not in the cache: download it without asking for the object again.
    case resolved(HitHandoff.Resolved)
    /// Not handled here; `requested` when the object request was sent (the full path then does
    /// not try the hit again).
    case notTaken(requested: Bool)
    /// Ctrl-C or SIGTERM during the request.
    case interrupted
  }

  /// The most bytes of an object answer read here (one object, one column); a longer answer goes
  /// to the full path.
  static let maximumBodyBytes = 1 << 20

  /// The REST idle timeout, as ParseFetch's `ParseClient` default.
  static let idleTimeout = 30.0

  /// The single Parse object a run names, when the hit can serve it: one `Class/objectId` source,
  /// a file column, no class walk, shard or query, and Parse settings that check out.
  struct Request {
    let className, objectID, column: String
    let parse: ParseSettings
  }

  /// The run's hit request, or nil when the run is not a single object's fetch (or its settings
  /// are wrong: the full path reports that, before any request).
  static func request(_ invocation: Invocation, environment: (String) -> String?) -> Request? {
    guard invocation.command == .fetch, invocation.parse.className == nil, invocation.parse.shard == nil,
      invocation.parse.whereJSON == nil, invocation.operands.count == 1,
      case .object(let className, let objectID) = SourceKind(argument: invocation.operands[0]),
      let column = invocation.parse.column,
      let parse = try? ParseSettings(invocation.parse, environment: environment)
    else { return nil }
    return Request(className: className, objectID: objectID, column: column, parse: parse)
  }

  /// Tries the hit. Nothing is printed unless the hit is served.
  /// - Parameters:
  ///   - invocation: The parsed command line.
  ///   - environment: Reads one environment variable.
  ///   - reporter: Prints the outcome (the run's, so a miss goes on with the same progress).
  /// - Returns: What came of it.
  package static func attempt(_ invocation: Invocation, environment: (String) -> String?, reporter: ItemReporter)
    -> Outcome
  {
    guard let request = request(invocation, environment: environment) else { return .notTaken(requested: false) }
    let parse = request.parse
    let shape = ParseREST.fileColumnRequest(
      className: request.className, objectID: request.objectID, column: request.column)
    let endpoint = ParseREST.endpoint(server: parse.serverURL.absoluteString, shape.segments, query: shape.query)
    let headers = ParseREST.restHeaders(
      applicationID: parse.applicationID, restAPIKey: parse.restAPIKey, masterKey: parse.masterKey,
      sessionToken: parse.sessionToken)
    let lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }.joined()
    // A value that would break a header line is left to URLSession.
    guard let url = URL(string: endpoint), !lines.utf8.contains(where: { $0 == 13 || $0 == 0 }),
      lines.utf8.count(where: { $0 == 10 }) == headers.count, rest_curl_available() != 0
    else { return .notTaken(requested: false) }
    var response = rest_response()
    let code = rest_get(
      url.absoluteString, lines, ImgfetchVersion.userAgent, Int64(idleTimeout * 1000), maximumBodyBytes, &response)
    defer { rest_response_free(&response) }
    if rest_was_interrupted() != 0 { return .interrupted }
    guard code == 0, response.redirected == 0, (200..<300).contains(response.status) else {
      return .notTaken(requested: true)
    }
    var bytes = [UInt8](repeating: 0, count: response.body_length)
    rest_response_copy_body(&response, &bytes, bytes.count)
    guard let json = ParseJSON.parse(Data(bytes)), case .file(let name, let fileURL) = FileColumn(json[request.column])
    else { return .notTaken(requested: true) }
    let source = "\(request.className)/\(request.objectID)"
    guard
      let entry = CacheLookup.existingEntry(
        in: invocation.cache.directory, named: CacheName.entry(parseFileName: name), environment: environment)
    else {
      return .resolved(
        HitHandoff.Resolved(
          source: source, column: request.column, server: parse.serverURL.absoluteString, fileName: name,
          fileURL: fileURL.absoluteString))
    }
    reporter.report(
      outcome(
        source: source, objectID: request.objectID, entry: entry, thumbnail: invocation.thumbnail.options,
        limits: invocation.limits.decodeLimits, reporter: reporter))
    return .served(reporter.finish(isBatch: false), fileName: name)
  }

  /// The item's outcome for a cached entry, as the full path makes it for a hit: progress reports
  /// the entry complete, the thumbnail is made or reused from its stamp, then the header is read.
  package static func outcome(
    source: String, objectID: String, entry path: String, thumbnail: ThumbnailOptions?, limits: DecodeLimits,
    reporter: ItemReporter
  ) -> ItemOutcome {
    var outcome = ItemOutcome(source: source, objectID: objectID)
    let bytes = Int64(FileStatus.of(path)?.size ?? 0)
    reporter.progress.transfer(source, received: bytes, expected: bytes)
    if let options = thumbnail {
      do throws(ThumbnailError) {
        outcome.thumbnail = try Thumbnailer(options: options).makeThumbnail(forFileAt: path)
      } catch {
        outcome.failure = LocalItem.describe(error)
        return outcome
      }
    }
    outcome.cacheHit = true
    outcome.bytes = bytes
    outcome.cachePath = path
    LocalItem.examine(
      path, into: &outcome, thumbnail: outcome.thumbnail == nil ? thumbnail : nil, limits: limits,
      alreadyValidated: true)
    return outcome
  }

  /// `imgfetch`'s network commands: serves a single object's warm hit here; anything else goes on
  /// in imgfetch-fetch. When the cache's hint says the object's file is cached
  /// (``ParseEssentials/CacheLookup/hintPath(cache:server:source:column:)``) the attempt runs
  /// alone, and a miss after all execs imgfetch-fetch with the resolved file; otherwise
  /// imgfetch-fetch is started first, beside the attempt, so that the likely miss finds it ready
  /// (``HitHandoff``), and a hit records the hint.
  /// - Parameter invocation: The parsed command line (``ImgfetchCLI/Invocation/needsNetwork``).
  /// - Returns: The exit status.
  public static func serveOrHandOff(_ invocation: Invocation) -> Int32 {
    let environment = { (name: String) in getenv(name).map { String(cString: $0) } }
    guard let request = request(invocation, environment: environment) else {
      return Imgfetch.execNetworkExecutable().rawValue
    }
    let cache = CacheLookup.existingCache(invocation.cache.directory, environment: environment)
    let hinted = cache.flatMap { CacheLookup.hintedEntry(hintPath(request, cache: $0), in: $0) } != nil
    // A likely hit runs alone: the companion's start-up would be CPU taken from it.
    let companion = hinted ? nil : HitHandoff.Companion.start()
    let reporter = ItemReporter(output: invocation.output, total: 1)
    // Ctrl-C during the hit's request: the C handlers cancel it (no thread is needed for them).
    _ = rest_install_interrupt_handlers()
    let outcome = attempt(invocation, environment: environment, reporter: reporter)
    let message: HitHandoff.Message
    switch outcome {
    case .served(let code, let fileName):
      companion?.dismiss()
      if !hinted { recordHint(invocation, environment: environment, fileName: fileName) }
      return rest_was_interrupted() != 0 ? interrupted().rawValue : code.rawValue
    case .interrupted:
      companion?.dismiss()
      return interrupted().rawValue
    case .resolved(let file): message = .resolved(file)
    case .notTaken(let requested): message = requested ? .requested : .untried
    }
    if rest_was_interrupted() != 0 {
      companion?.dismiss()
      return interrupted().rawValue
    }
    if let companion, let status = companion.handOver(message) { return status }
    if case .untried = message { return Imgfetch.execNetworkExecutable().rawValue }
    return HitHandoff.exec(message).rawValue
  }

  /// The hint of the run's object.
  static func hintPath(_ request: Request, cache: String) -> String {
    CacheLookup.hintPath(
      cache: cache, server: request.parse.serverURL.absoluteString,
      source: "\(request.className)/\(request.objectID)", column: request.column)
  }

  /// Records, for the full path, which file a single object's run found (a hit served, or a miss
  /// fetched), so that the object's next warm hit is served by `imgfetch` itself. Nothing is made
  /// when the run is not a single object's or the cache is not there.
  /// - Parameters:
  ///   - invocation: The parsed command line.
  ///   - environment: Reads one environment variable.
  ///   - fileName: The file's stored name.
  package static func recordHint(_ invocation: Invocation, environment: (String) -> String?, fileName: String) {
    guard let request = request(invocation, environment: environment),
      let cache = CacheLookup.existingCache(invocation.cache.directory, environment: environment)
    else { return }
    CacheLookup.writeHint(hintPath(request, cache: cache), entry: CacheName.entry(parseFileName: fileName))
  }

  /// Says so and returns the exit code of an interrupted run.
  package static func interrupted() -> ExitCode {
    Console.error("interrupted")
    return .interrupted
  }
}
