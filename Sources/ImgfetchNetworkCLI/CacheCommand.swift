import Foundation
import ImgfetchCLI
import ParseFetch

/// `imgfetch cache stats | clear | gc [--cache-dir DIR] [--max-age SECONDS]`: look after the cache.
enum CacheCommand {
  static func run(_ invocation: Invocation) throws(UsageError) -> ExitCode {
    let parsed = invocation.parsed
    let action = invocation.operands[0]
    let cache: DiskCache
    do { cache = try DiskCache(directory: invocation.cache.directory.map { URL(fileURLWithPath: $0) }) } catch {
      Console.error("\(error)")
      return .fileSystem
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
        return .fileSystem
      }
      Console.out("cleared \(cache.directory.path)")
    case "gc":
      let age = invocation.cache.maxAge
      let removed = cache.removeStaleFiles(olderThan: age)
      Console.out("removed \(removed) stale partial or temporary files from \(cache.directory.path)")
    default:
      throw UsageError("cache needs one of: stats, clear, gc (got \(action))")
    }
    return .success
  }
}
