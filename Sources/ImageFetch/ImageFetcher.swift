import FoundationEssentials
import ImageCodecs
import ParseFetch

/// Loads images from Parse file columns and plain URLs through the validated disk cache.
///
/// ```swift
/// let fetcher = try ImageFetcher(configuration: try ParseConfiguration())
/// let photo = ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm")
/// let image = try await fetcher.image(of: photo, column: "MainImage") { print($0) }
/// ```
///
/// A download is validated by one strict decode before it may enter the cache, and that decode
/// is the one the caller needed anyway: the full-size pixels for ``image(of:column:progress:)``,
/// the thumbnail's for ``thumbnail(of:column:options:sizes:progress:)``, and for a plain
/// ``cachedFile(of:column:progress:)`` the cheapest decode that still reads every byte. A cache
/// hit costs no file request and decodes nothing unless pixels are asked for. Concurrent loads of
/// one file share one download and one decode.
///
/// Every method throws ``ImageFetchError`` (``ImageFetchError/cancelled`` when its task is
/// cancelled).
public final class ImageFetcher: Sendable {
  /// The Parse client, when a server is configured.
  public let client: ParseClient?
  /// The cache and downloader, with the decoder as their validation.
  public let files: FileFetcher<ValidatedImage>
  /// The options of every decode (limits, strictness, pixel format).
  public let decodeOptions: DecodeOptions
  /// How many downloads are decoded at once; further downloads go on into their `.part` files
  /// and are decoded when a slot frees.
  public var maxConcurrentDecodes: Int { slots.count }
  let slots: DecodeSlots

  /// Creates a fetcher.
  /// - Parameters:
  ///   - configuration: The Parse Server, or nil to load plain URLs only.
  ///   - cache: The cache (a ``/ParseFetch/DiskCache`` or another ``/ParseFetch/FileCaching``); the
  ///     default directory when nil.
  ///   - downloader: What downloads misses (a ``/ParseFetch/Downloader``, or another
  ///     ``/ParseFetch/DataLoading``). The Parse REST requests take a `Downloader`'s idle timeout,
  ///     speed floor and deadline (``/ParseFetch/Downloader/Options``), else the defaults.
  ///   - decodeOptions: Options of the validating decode.
  ///   - maxConcurrentDecodes: How many downloads are decoded at once; one per active core when nil.
  /// - Throws: ``ImageFetchError/cache(_:)`` when the cache directory cannot be created.
  public init(
    configuration: ParseConfiguration? = nil, cache: (any FileCaching)? = nil,
    downloader: any DataLoading = Downloader(), decodeOptions: DecodeOptions = DecodeOptions(),
    maxConcurrentDecodes: Int? = nil
  ) throws(ImageFetchError) {
    let store: any FileCaching
    if let cache {
      store = cache
    } else {
      do { store = try DiskCache() } catch { throw .cache(error) }
    }
    // The REST requests keep the downloader's clocks (idle timeout, speed floor, deadline).
    let clocks = (downloader as? Downloader)?.options ?? Downloader.Options()
    self.client = configuration.map {
      ParseClient(
        configuration: $0, timeout: clocks.idleTimeout, minimumSpeed: clocks.minimumSpeed,
        maximumDuration: clocks.maximumDuration)
    }
    self.decodeOptions = decodeOptions
    let slots = maxConcurrentDecodes.map { DecodeSlots(count: $0) } ?? .perCore()
    self.slots = slots
    self.files = FileFetcher(cache: store, downloader: downloader) {
      ImageValidator(options: decodeOptions, goal: .verdict, slots: slots)
    }
  }

  /// Where a file comes from and how it is cached: the request half of every load.
  struct Source: Sendable {
    var url: URL
    var key: CacheKey
    var headers: [String: String] = [:]
    var headersOrigin: URL?
  }

  /// Brings a file into the cache, validating a download with the decode `goal` asks for.
  func fetch(_ source: Source, goal: DecodeGoal, progress: ProgressHandler?) async throws(ImageFetchError)
    -> FetchedFile<ValidatedImage>
  {
    let (options, slots) = (decodeOptions, slots)
    do {
      return try await files.fetch(
        source.url, key: source.key, headers: source.headers, headersOrigin: source.headersOrigin,
        validator: { ImageValidator(options: options, goal: goal, slots: slots) }, progress: progress)
    } catch {
      throw .wrap(error, url: source.url)
    }
  }

  /// Brings a file into the cache and returns it with its full-size image.
  ///
  /// The image is the validating decode's when the file was downloaded now; on a hit the cached
  /// file is decoded, and if that fails (the file was damaged on disk) it is removed and
  /// downloaded again once.
  func load(_ source: Source, progress: ProgressHandler?) async throws(ImageFetchError) -> LoadedImage {
    let file = try await fetch(source, goal: .pixels, progress: progress)
    if let image = file.value?.image { return LoadedImage(file: file, image: image) }
    let (path, options) = (file.path, decodeOptions)
    do {
      return LoadedImage(
        file: file, image: try await CPUWork.shared.run { try ImageDecoder.decode(contentsOf: path, options: options) })
    } catch let error as DecodeError {
      do { try files.cache.removeEntry(for: source.key) } catch { throw .cache(error) }
      let fresh = try await fetch(source, goal: .pixels, progress: progress)
      guard let image = fresh.value?.image else {
        throw .invalidImage(name: source.key.fileName, error)
      }
      return LoadedImage(file: fresh, image: image)
    } catch {
      throw .wrap(error, url: source.url)
    }
  }
}
