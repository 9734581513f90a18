import CRestRequest
import Foundation
import ImgfetchCLI
import ImgfetchVersion
import ParseFetch
import SystemFiles
import Thumbnails

/// The warm hit of one Parse object (`imgfetch Class/objectId --column COL [--thumbnail …]` when
/// the cache already holds the file): the one request it needs (the object JSON) goes through
/// libcurl's C API (``CRestRequest``), not URLSession, and the rest (cache lookup, thumbnail stamp,
/// header, output) is the same code the full path runs, so a hit starts, asks and answers in about
/// the time of a bare `curl` of the object JSON (issue 10.5).
///
/// Anything it does not handle exactly as the full path would is handed back untouched: a redirect
/// (URLSession follows it and drops the Parse keys on another origin), any answer but a 2xx Parse
/// object whose column is a File, a connection failure, a cache directory that is missing or not
/// yet a cache. The full path then makes the request itself, with its retries and its error
/// messages. A miss hands back the resolved file, so the full path downloads it without asking
/// for the object again: one object request either way.
enum WarmHit {
  /// What came of the attempt.
  enum Outcome {
    /// A hit: printed, with this exit code.
    case served(ExitCode)
    /// The object's file, not in the cache: download it without asking for the object again.
    case resolved(ParseObjectReference, ParseFile)
    /// Not handled here (the full path starts from the beginning).
    case notTaken
    /// Ctrl-C or SIGTERM during the request.
    case interrupted
  }

  /// The most bytes of an object answer read here (one object, one column); a longer answer goes
  /// to the full path.
  static let maximumBodyBytes = 1 << 20

  /// The REST idle timeout, as ``ParseFetch/ParseClient``'s default.
  static let idleTimeout = 30.0

  /// Tries the hit. Nothing is printed unless the hit is served.
  /// - Parameters:
  ///   - settings: The checked settings of the run.
  ///   - reporter: Prints the outcome (the run's, so a miss goes on with the same progress).
  /// - Returns: What came of it.
  static func attempt(_ settings: FetchSettings, reporter: ItemReporter) -> Outcome {
    guard settings.className == nil, settings.shard == nil, settings.sources.count == 1,
      case .object(let object) = settings.sources[0], let column = settings.column, let parse = settings.parse
    else { return .notTaken }
    let url = parse.endpoint(["classes", object.className, object.objectID], query: [("keys", column)])
    let lines = parse.restHeaders.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\n" }.joined()
    // A value that would break a header line is left to URLSession.
    guard !lines.utf8.contains(where: { $0 == 13 || $0 == 0 }),
      lines.utf8.count(where: { $0 == 10 }) == parse.restHeaders.count
    else { return .notTaken }
    var response = rest_response()
    let code = rest_get(
      url.absoluteString, lines, ImgfetchVersion.userAgent, Int64(idleTimeout * 1000), maximumBodyBytes, &response)
    defer { rest_response_free(&response) }
    if rest_was_interrupted() != 0 { return .interrupted }
    guard code == 0, response.redirected == 0, (200..<300).contains(response.status) else { return .notTaken }
    var bytes = [UInt8](repeating: 0, count: response.body_length)
    rest_response_copy_body(&response, &bytes, bytes.count)
    let body = Data(bytes)
    guard
      let file = try? ParseFile(
        response: Int(response.status), headers: [:], body: body, of: object, column: column)
    else { return .notTaken }
    // The cache as the full path opens it, but never created here: a missing directory is the full path's.
    guard let cache = try? DiskCache(directory: settings.cacheDirectory, creating: false),
      let entry = cache.cachedFile(for: CacheKey(parseFileName: file.name))
    else { return .resolved(object, file) }
    reporter.report(outcome(of: object, entry: entry, settings: settings, reporter: reporter))
    return .served(reporter.finish(isBatch: false))
  }

  /// The item's outcome for a cached entry, as ``BatchRun`` makes it for a hit: progress reports
  /// the entry complete, the thumbnail is made or reused from its stamp, then the header is read.
  static func outcome(
    of object: ParseObjectReference, entry path: String, settings: FetchSettings, reporter: ItemReporter
  )
    -> ItemOutcome
  {
    var outcome = ItemOutcome(source: object.description, objectID: object.objectID)
    let bytes = Int64(FileStatus.of(path)?.size ?? 0)
    reporter.progress.transfer(object.description, received: bytes, expected: bytes)
    if let options = settings.thumbnail {
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
      path, into: &outcome, thumbnail: outcome.thumbnail == nil ? settings.thumbnail : nil,
      limits: settings.decodeLimits, alreadyValidated: true)
    return outcome
  }
}
