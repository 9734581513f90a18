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
    do { cache = try DiskCache(directory: parsed.value("cache-dir").map { URL(fileURLWithPath: $0) }) } catch {
      Console.error("\(error)")
      return .networkError
    }
    switch action {
    case "stats":
      let names = (try? FileManager.default.contentsOfDirectory(atPath: cache.directory.path)) ?? []
      let parts = names.filter { $0.hasSuffix(".part") }.count
      let thumbnails = names.filter { $0.contains(".thumb-") }.count
      let entries = names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".part") && !$0.contains(".thumb-") }.count
      let bytes = cache.totalSize()
      if parsed.has("json") {
        Console.out(
          jsonLine([
            ("directory", .string(cache.directory.path)), ("entries", .int(entries)),
            ("thumbnails", .int(thumbnails)), ("partialDownloads", .int(parts)), ("bytes", .int(Int(bytes))),
          ]))
      } else {
        Console.out(
          "\(cache.directory.path): \(entries) images, \(thumbnails) thumbnails, \(parts) partial downloads, \(ProgressLine.bytes(bytes))"
        )
      }
    case "clear":
      do { try cache.removeAll() } catch {
        Console.error("\(error)")
        return .networkError
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
