import Foundation
import ParseFetch

/// `imgfetch cache stats | clear | gc [--cache-dir DIR] [--max-age SECONDS]`: look after the cache.
enum CacheCommand {
  static let specs: [OptionSpec] = [
    OptionSpec(
      "cache-dir", value: true, help: "cache directory (default $XDG_CACHE_HOME/imgfetch or ~/.cache/imgfetch)"),
    OptionSpec("max-age", value: true, help: "gc: remove .part and temporary files older than this (default 86400 s)"),
    OptionSpec("json", help: "stats as one JSON object"),
  ]

  static func run(_ arguments: [String]) throws(UsageError) -> ExitCode {
    let parsed = try parseArguments(arguments, specs: specs)
    guard parsed.positionals.count == 1, let action = parsed.positionals.first else {
      throw UsageError("cache needs one of: stats, clear, gc")
    }
    let cache: DiskCache
    do {
      // Looking after a cache never creates one, and never touches a directory imgfetch did not make.
      cache = try DiskCache(directory: parsed.value("cache-dir").map { URL(fileURLWithPath: $0) }, creating: false)
    } catch {
      if case .missing(let path) = error {
        if action == "stats" && parsed.has("json") {
          Console.out(jsonLine([("directory", .string(path)), ("exists", .bool(false))]))
        } else {
          Console.out("no cache at \(path)")
        }
        return .success
      }
      Console.error("\(error)")
      return .usage
    }
    switch action {
    case "stats":
      let stats = cache.statistics()
      if parsed.has("json") {
        Console.out(
          jsonLine([
            ("directory", .string(cache.directory.path)), ("exists", .bool(true)), ("entries", .int(stats.entries)),
            ("thumbnails", .int(stats.thumbnails)), ("partialDownloads", .int(stats.partialDownloads)),
            ("bytes", .int(Int(stats.entryBytes))),
          ]))
      } else {
        Console.out(
          "\(cache.directory.path): \(stats.entries) images, \(stats.thumbnails) thumbnails, \(stats.partialDownloads) partial downloads, \(ProgressLine.bytes(stats.entryBytes))"
        )
      }
    case "clear":
      do { try cache.removeAll() } catch {
        Console.error("\(error)")
        return .usage
      }
      Console.out("cleared \(cache.directory.path)")
    case "gc":
      var age: TimeInterval = 86_400
      if let text = parsed.value("max-age") {
        age = try NumericOption.seconds(text, option: "max-age", in: NumericOption.maxAge)
      }
      let removed = cache.removeStaleFiles(olderThan: age)
      Console.out("removed \(removed) stale partial or temporary files from \(cache.directory.path)")
    default:
      throw UsageError("cache needs one of: stats, clear, gc (got \(action))")
    }
    return .success
  }
}
