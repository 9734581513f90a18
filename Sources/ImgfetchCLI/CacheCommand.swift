import ParseFetch

/// `imgfetch cache stats | clear | gc [--cache-dir DIR] [--max-age SECONDS] [--max-size SIZE] [--json]`:
/// look after the cache. Each prints its result on standard output, one line (with `--json`, one object): what
/// the cache holds, or what was removed, by kind of file with its bytes; errors go to standard error.
enum CacheCommand {
  static func run(_ invocation: Invocation) throws(UsageError) -> ExitCode {
    let json = invocation.parsed.has("json")
    let action = invocation.operands[0]
    let dryRun = invocation.parsed.has("dry-run")
    if dryRun && action == "stats" { throw UsageError("--dry-run goes with cache clear or gc (stats removes nothing)") }
    let cache: DiskCache
    do {
      // Looking after a cache never creates one, and never touches a directory imgfetch did not make.
      cache = try DiskCache(directory: invocation.cache.directory, creating: false)
    } catch {
      if case .missing(let path) = error {
        Console.out(json ? jsonLine([("directory", .string(path)), ("exists", .bool(false))]) : "no cache at \(path)")
        return Console.exitCode(.success)
      }
      Console.error("\(error)")
      return .fileSystem
    }
    switch action {
    case "stats":
      let stats = cache.statistics()
      if json {
        Console.out(
          jsonLine([
            ("directory", .string(cache.directory)), ("exists", .bool(true)), ("entries", .int(stats.entries)),
            ("thumbnails", .int(stats.thumbnails)), ("partialDownloads", .int(stats.partialDownloads)),
            ("temporaryFiles", .int(stats.temporaryFiles)), ("lockFiles", .int(stats.lockFiles)),
            ("bytes", .int(Int(stats.entryBytes))), ("thumbnailBytes", .int(Int(stats.thumbnailBytes))),
            ("partialBytes", .int(Int(stats.partialBytes))), ("temporaryBytes", .int(Int(stats.temporaryBytes))),
            ("totalBytes", .int(Int(stats.totalBytes))),
          ]))
      } else {
        Console.out(summary(stats, of: cache))
      }
    case "clear" where dryRun:
      // What clear removes is what stats counts.
      let removed = cache.statistics()
      Console.out(
        json
          ? removalObject(removed, action: action, from: cache, dryRun: true)
          : removal(removed, from: cache, dryRun: true))
    case "gc" where dryRun:
      var removed = cache.removeStaleFiles(olderThan: invocation.cache.maxAge, removing: false)
      if let size = invocation.cache.gcMaxSize { removed.add(cache.evict(toFit: size, removing: false)) }
      Console.out(
        json
          ? removalObject(removed, action: action, from: cache, dryRun: true)
          : removal(removed, from: cache, dryRun: true))
    case "clear":
      let removed: DiskCache.Statistics
      do { removed = try cache.removeAll() } catch {
        Console.error("\(error)")
        return .fileSystem
      }
      Console.out(json ? removalObject(removed, action: action, from: cache) : removal(removed, from: cache))
    case "gc":
      var removed = cache.removeStaleFiles(olderThan: invocation.cache.maxAge)
      if let size = invocation.cache.gcMaxSize { removed.add(cache.evict(toFit: size)) }
      Console.out(json ? removalObject(removed, action: action, from: cache) : removal(removed, from: cache))
    default:
      throw UsageError("cache needs one of: stats, clear, gc (got \(action))")
    }
    return Console.exitCode(.success)
  }

  /// What the cache holds, in the words and bytes `clear` would report removing: `DIR: 2 images
  /// (1.5 KB), 1 thumbnail (20 B), 0 partial downloads, 0 temporary files, 1 lock file (1.5 KB in all)`.
  static func summary(_ stats: DiskCache.Statistics, of cache: DiskCache) -> String {
    let kinds = [
      counted(stats.entries, "image") + (stats.entries > 0 ? " (\(ProgressLine.bytes(stats.entryBytes)))" : ""),
      counted(stats.thumbnails, "thumbnail")
        + (stats.thumbnails > 0 ? " (\(ProgressLine.bytes(stats.thumbnailBytes)))" : ""),
      counted(stats.partialDownloads, "partial download")
        + (stats.partialDownloads > 0 ? " (\(ProgressLine.bytes(stats.partialBytes)))" : ""),
      counted(stats.temporaryFiles, "temporary file")
        + (stats.temporaryFiles > 0 ? " (\(ProgressLine.bytes(stats.temporaryBytes)))" : ""),
      counted(stats.lockFiles, "lock file"),
    ]
    return "\(cache.directory): \(kinds.joined(separator: ", ")) (\(ProgressLine.bytes(stats.totalBytes)) in all)"
  }

  /// What `clear` or `gc` removed, by kind, in one line: `removed 2 images (1.5 KB), 1 lock file from
  /// DIR (1.5 KB in all)`, or `nothing to remove in DIR`.
  static func removal(_ removed: DiskCache.Statistics, from cache: DiskCache, dryRun: Bool = false) -> String {
    let kinds: [(Int, String, Int64?)] = [
      (removed.entries, counted(removed.entries, "image"), removed.entryBytes),
      (removed.thumbnails, counted(removed.thumbnails, "thumbnail"), removed.thumbnailBytes),
      (removed.partialDownloads, counted(removed.partialDownloads, "partial download"), removed.partialBytes),
      (removed.temporaryFiles, counted(removed.temporaryFiles, "temporary file"), removed.temporaryBytes),
      (removed.lockFiles, counted(removed.lockFiles, "lock file"), nil),
    ]
    let parts = kinds.filter { $0.0 > 0 }.map { $0.1 + ($0.2.map { " (\(ProgressLine.bytes($0)))" } ?? "") }
    if parts.isEmpty { return "nothing to remove in \(cache.directory)" }
    let total = ProgressLine.bytes(removed.totalBytes)
    return
      "\(dryRun ? "would remove" : "removed") \(parts.joined(separator: ", ")) from \(cache.directory) (\(total) in all)"
  }

  /// What `clear` or `gc` removed, as one JSON object: `directory`, `action`, `removedEntries`,
  /// `removedThumbnails`, `removedPartialDownloads`, `removedTemporaryFiles`, `removedLockFiles`,
  /// `removedBytes` (every kind together); with `--dry-run`, `dryRun` and what would be removed.
  static func removalObject(
    _ removed: DiskCache.Statistics, action: String, from cache: DiskCache, dryRun: Bool = false
  ) -> String {
    let head: [(String, JSONValue)] =
      [("directory", .string(cache.directory)), ("action", .string(action))] + (dryRun ? [("dryRun", .bool(true))] : [])
    return jsonLine(
      head + [
        ("removedEntries", .int(removed.entries)), ("removedThumbnails", .int(removed.thumbnails)),
        ("removedPartialDownloads", .int(removed.partialDownloads)),
        ("removedTemporaryFiles", .int(removed.temporaryFiles)), ("removedLockFiles", .int(removed.lockFiles)),
        ("removedBytes", .int(Int(removed.totalBytes))),
      ])
  }
}
