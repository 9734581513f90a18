import FoundationEssentials
import ImageCodecs
import ParseFetch
import Thumbnails

/// Why an image could not be loaded: the stage that failed, with its own error.
///
/// Every `ImageFetcher` method throws exactly this type (typed throws), cancellation included,
/// so a caller sorts failures with a `switch`, not by casting `any Error`.
public enum ImageFetchError: Error, Sendable, CustomStringConvertible {
  /// Reading the object or its file column from Parse failed.
  case parse(ParseError)
  /// Downloading the file failed.
  case download(DownloadError)
  /// The downloaded file is not a valid image; it was deleted and nothing was cached.
  case invalidImage(name: String, DecodeError)
  /// The cache directory could not be used.
  case cache(CacheError)
  /// A Parse object was asked for, but the fetcher has no ``/ParseFetch/ParseConfiguration``.
  case parseNotConfigured
  /// The thumbnail of a valid, cached original could not be made or written.
  case thumbnail(ThumbnailError)
  /// The task was cancelled; a partial download stays as a `.part` file for a resume.
  case cancelled

  /// One sentence that says what failed and what to do.
  public var description: String {
    switch self {
    case .parse(let error): "\(error)"
    case .download(let error): "\(error)"
    case .invalidImage(let name, let error) where error.kind == .limitExceeded:
      "the download of \(name) is over a decode limit and was not cached: \(error)"
    case .invalidImage(let name, let error):
      "the download of \(name) is not a valid image and was not cached: \(error)"
    case .cache(let error): "\(error)"
    case .parseNotConfigured:
      "no Parse Server is configured: set PARSE_SERVER_URL and PARSE_APPLICATION_ID"
    case .thumbnail(let error): "\(error)"
    case .cancelled: "cancelled"
    }
  }

  /// Whether the failure is the file's own (not a valid image, or no thumbnail can be made of
  /// it), rather than the network's, the server's or the cache's.
  public var isInvalidImage: Bool {
    switch self {
    case .invalidImage: true
    case .thumbnail(let error): if case .decode = error { true } else { false }
    default: false
    }
  }

  /// Sorts a lower stage's error into a case.
  static func wrap(_ error: any Error, url: URL? = nil) -> ImageFetchError {
    switch error {
    case let error as ImageFetchError: error
    case let error as ParseError: .parse(error)
    case let error as DownloadError: .download(error)
    case CacheError.validationFailed(let key, let underlying as DecodeError):
      .invalidImage(name: key.fileName, underlying)
    case CacheError.validationFailed(let key, ThumbnailError.decode(let underlying)):
      .invalidImage(name: key.fileName, underlying)
    case CacheError.validationFailed(_, let underlying as ThumbnailError): .thumbnail(underlying)
    case let error as CacheError: .cache(error)
    case let error as ThumbnailError: .thumbnail(error)
    case is CancellationError: .cancelled
    default:
      Task.isCancelled
        ? .cancelled
        : .download(
          .unusableResponse(
            url: url.map { "\($0.scheme ?? "")://\($0.host ?? "")\($0.path)" } ?? "?", reason: "\(error)"))
    }
  }
}
