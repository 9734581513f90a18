import FoundationEssentials
import Synchronization
import SystemFiles

/// Brings files into a cache (a ``FileCaching``, ``DiskCache`` by default): a hit costs no
/// request; a miss is downloaded to its `.part` file while a ``DownloadValidator`` checks the
/// bytes as they arrive, and stored only once it accepted the whole file.
///
/// ```swift
/// let fetcher = FileFetcher(cache: try DiskCache()) { path in try decodeImage(at: path) }
/// let file = try await fetcher.fetch(url, key: CacheKey(parseFileName: name)) { print($0) }
/// ```
///
/// Concurrent fetches of one key in this process share one transfer and one validation; each
/// caller gets its own progress. Cancelling a caller ends only its wait; cancelling every caller
/// cancels the transfer (its `.part` file stays for a resume). A per-entry file lock keeps other
/// processes sharing the directory from downloading or storing the same entry at once.
public final class FileFetcher<Value: Sendable>: Sendable {
  /// Checks a complete download and returns what later stages need (such as a decoded image);
  /// throwing rejects the file.
  public typealias Validator = @Sendable (String) throws -> Value

  /// Makes the validator of each download attempt.
  public typealias ValidatorFactory = @Sendable () -> any DownloadValidator<Value>

  /// Where entries are stored.
  public let cache: any FileCaching
  /// What downloads misses.
  public let downloader: any DataLoading
  let makeValidator: ValidatorFactory
  let transfers = Locked<[CacheKey: Transfer]>([:])
  let nextID = Atomic<Int>(0)

  /// Creates a fetcher whose validation reads each complete download from disk.
  /// - Parameters:
  ///   - cache: Where entries are stored.
  ///   - downloader: What downloads misses.
  ///   - validate: Runs on each complete download before it may become an entry.
  public convenience init(
    cache: any FileCaching, downloader: any DataLoading = Downloader(),
    validate: @escaping Validator
  ) {
    self.init(cache: cache, downloader: downloader) { FileValidator(validate) }
  }

  /// Creates a fetcher whose validation sees each download's bytes as they arrive.
  /// - Parameters:
  ///   - cache: Where entries are stored.
  ///   - downloader: What downloads misses.
  ///   - makeValidator: Makes the validator of each attempt (used when a fetch gives none).
  public init(
    cache: any FileCaching, downloader: any DataLoading = Downloader(),
    makeValidator: @escaping ValidatorFactory
  ) {
    self.cache = cache
    self.downloader = downloader
    self.makeValidator = makeValidator
  }

  /// Returns the cache entry for `key`, downloading and validating `url` on a miss.
  /// - Parameters:
  ///   - url: Where to download from on a miss.
  ///   - key: The entry's key (for Parse files, from the file's name).
  ///   - headers: Extra request headers, such as ``ParseConfiguration/fileHeaders``.
  ///   - headersOrigin: The only origin that receives `headers` (for Parse credentials, the
  ///     server URL): `url`'s own when nil. See ``Downloader/download(from:to:headers:headersOrigin:consumer:progress:)``.
  ///   - validator: Makes this fetch's validators instead of the fetcher's own (a caller
  ///     joining a transfer already running gets that transfer's validation).
  ///   - progress: Called as bytes arrive; a hit reports completion once.
  /// - Returns: The entry, with the validation's value when it was validated now.
  /// - Throws: ``DownloadError``; ``CacheError/validationFailed(_:underlying:)`` when the file is
  ///   rejected (nothing is stored); other ``CacheError``s; `CancellationError`.
  public func fetch(
    _ url: URL, key: CacheKey, headers: [String: String] = [:], headersOrigin: URL? = nil,
    validator: ValidatorFactory? = nil, progress: ProgressHandler? = nil
  ) async throws -> FetchedFile<Value> {
    if let hit = cachedEntry(key) {
      progress?(DownloadProgress(bytesReceived: hit.byteCount, bytesExpected: hit.byteCount))
      return hit
    }
    let id = nextID.add(1, ordering: .relaxed).newValue
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        join(
          Request(
            url: url, key: key, headers: headers, headersOrigin: headersOrigin,
            makeValidator: validator ?? makeValidator),
          Subscriber(id: id, progress: progress, continuation: continuation))
      }
    } onCancel: {
      leave(key, subscriber: id)
    }
  }

  /// The entry for `key` if it is cached, without validation.
  func cachedEntry(_ key: CacheKey) -> FetchedFile<Value>? {
    guard let path = cache.cachedFile(for: key) else { return nil }
    return FetchedFile(
      key: key, path: path, value: nil, isCacheHit: true, byteCount: Downloader.size(of: path))
  }

  /// Downloads, validates and stores one entry, holding its file lock throughout.
  func load(_ request: Request, progress: @escaping ProgressHandler) async throws -> FetchedFile<
    Value
  > {
    let lock = try await cache.lockEntry(request.key)
    defer { lock.unlock() }
    if let hit = cachedEntry(request.key) {  // another process stored it while we waited
      progress(DownloadProgress(bytesReceived: hit.byteCount, bytesExpected: hit.byteCount))
      return hit
    }
    let part = cache.partPath(for: request.key)
    let validators = ValidatorLog(request.makeValidator)
    let size: Int64
    do {
      size = try await downloader.download(
        from: request.url, to: part, headers: request.headers,
        headersOrigin: request.headersOrigin, consumer: validators.factory, progress: progress)
    } catch let error as DownloadError {
      throw error
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      _ = try? FileSystem.remove(part)
      throw CacheError.validationFailed(request.key, underlying: error)
    }
    guard let value = validators.value else {
      _ = try? FileSystem.remove(part)
      throw CacheError.validationFailed(
        request.key, underlying: DownloadError.file(path: part, reason: "not validated"))
    }
    let entry = try cache.store(part, as: request.key)
    return FetchedFile(
      key: request.key, path: entry, value: value, isCacheHit: false, byteCount: size)
  }
}
