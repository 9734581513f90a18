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
  /// `--cache-max-size`: the cache's budget in bytes.
  var cacheMaxSize: Int64? { invocation.cache.maxSize }
  var downloader = Downloader.Options()

  var className: String? { invocation.parse.className }
  var column: String? { invocation.parse.column }
  var whereJSON: String? { invocation.parse.whereJSON }
  var shard: Shard? { invocation.parse.shard }
  /// The thumbnail settings, with `--output-dir`'s folder and source root.
  var thumbnail: ThumbnailOptions?
  /// Every `--thumbnail` size (`64,256,1024`): the fetcher makes them all with a download's own
  /// decode (with `--thumbnails-only`, then removes the original).
  var thumbnailSizes: [ThumbnailSize] { invocation.thumbnail.sizes }
  /// Whether a SOURCE was a folder (walked into its images).
  var walkedFolder = false
  var decodeLimits: DecodeLimits { invocation.limits.decodeLimits }
  var jobs: Int { invocation.work.jobs }

  /// Reads and checks the settings.
  /// - Parameters:
  ///   - invocation: The parsed command line.
  ///   - environment: Reads one environment variable (the Parse settings' fallback).
  /// - Throws: ``UsageError``.
  init(_ invocation: Invocation, environment: (String) -> String?) throws(UsageError) {
    self.invocation = invocation
    let isLocal = { (argument: String) in SourceKind(argument: argument) == .local }
    let operands = LocalOperands(invocation.operands, recursive: invocation.folders.recursive, isLocal: isLocal)
    walkedFolder = operands.walkedFolder
    for item in operands.items {
      switch item {
      case .given(let argument): sources.append(try FetchSource(argument: argument))
      case .walked(let path): sources.append(.local(path))
      case .unreadable(let folder, let message): sources.append(.unreadableFolder(folder, message))
      }
    }
    if let text = whereJSON {
      do { try ParseClient.checkWhere(text) } catch { throw UsageError("--where must be a JSON object (got \(text))") }
    }
    let needsParse = className != nil || sources.contains { $0.needsParse }
    if needsParse { parse = try invocation.parse.configuration(environment: environment) }
    cacheDirectory = invocation.cache.directory
    thumbnail = invocation.thumbnail.options
    let downloads = className != nil || sources.contains(where: \.isDownload)
    if let output = invocation.folders.outputDirectory, thumbnail != nil {
      // Downloads are mirrored from the cache directory, so they never meet a local source's path.
      thumbnail?.outputDirectory = ThumbnailDirectory(
        path: output,
        sourceRoot: LocalOperands.sourceRoot(
          of: invocation.operands, cacheDirectory: downloads ? cacheDirectory ?? DiskCache.defaultDirectory() : nil,
          isLocal: isLocal))
    }
    try ThumbnailNames.checkDownloads(options: thumbnail, downloads: downloads)
    try ThumbnailNames.check(
      localSources: sources.compactMap(\.localPath), options: thumbnail, sizes: invocation.thumbnail.sizes)
    if let value = invocation.network.maxBytes { downloader.maximumBytes = Int64(value) }
    if let value = invocation.network.timeout { downloader.idleTimeout = value }
    if let value = invocation.network.minSpeed { downloader.minimumSpeed = value }
    if let value = invocation.network.maxTime { downloader.maximumDuration = value }
    if let value = invocation.network.retries { downloader.retryPolicy.maxAttempts = value + 1 }
  }
}
