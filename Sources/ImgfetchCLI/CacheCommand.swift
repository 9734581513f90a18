import ParseFetch

/// `imgfetch cache stats | clear | gc [--cache-dir DIR] [--max-age SECONDS]`: look after the cache.
enum CacheCommand {
  static func run(_ invocation: Invocation) throws(UsageError) -> ExitCode {
    let parsed = invocation.parsed
    let action = invocation.operands[0]
    let cache: DiskCache
    do {
      // Looking after a cache never creates one, and never touches a directory imgfetch did not make.
      cache = try DiskCache(directory: invocation.cache.directory, creating: false)
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
      return .fileSystem
    }
    switch action {
    case "stats":
      let stats = cache.statistics()
      if parsed.has("json") {
        Console.out(
          jsonLine([
            ("directory", .string(cache.directory)), ("exists", .bool(true)), ("entries", .int(stats.entries)),
            ("thumbnails", .int(stats.thumbnails)), ("partialDownloads", .int(stats.partialDownloads)),
            ("temporaryFiles", .int(stats.temporaryFiles)), ("lockFiles", .int(stats.lockFiles)),
            ("bytes", .int(Int(stats.entryBytes))),
          ]))
      } else {
        Console.out(
          "\(cache.directory): \(stats.entries) images, \(stats.thumbnails) thumbnails, "
            + "\(stats.partialDownloads) partial downloads, \(stats.temporaryFiles) temporary files, "
            + "\(stats.lockFiles) lock files, \(ProgressLine.bytes(stats.entryBytes))"
        )
      }
    case "clear":
      do { try cache.removeAll() } catch {
        Console.error("\(error)")
        return .fileSystem
      }
      Console.out("cleared \(cache.directory)")
    case "gc":
      let age = invocation.cache.maxAge
      let removed = cache.removeStaleFiles(olderThan: age)
      Console.out("removed \(removed) stale partial, temporary or lock files from \(cache.directory)")
    default:
      throw UsageError("cache needs one of: stats, clear, gc (got \(action))")
    }
    return .success
  }
}
