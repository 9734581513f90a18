import ImageCodecs
import ParseFetch

/// Why an image could not be loaded: the stage that failed, with its own error.
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

  /// One sentence that says what failed and what to do.
  public var description: String {
    switch self {
    case .parse(let error): "\(error)"
    case .download(let error): "\(error)"
    case .invalidImage(let name, let error):
      "the download of \(name) is not a valid image and was not cached: \(error)"
    case .cache(let error): "\(error)"
    case .parseNotConfigured:
      "no Parse Server is configured: set PARSE_SERVER_URL and PARSE_APPLICATION_ID"
    }
  }

  /// Sorts a lower stage's error into a case; cancellation passes through unchanged.
  static func wrap(_ error: any Error) -> any Error {
    switch error {
    case let error as ParseError: ImageFetchError.parse(error)
    case let error as DownloadError: ImageFetchError.download(error)
    case CacheError.validationFailed(let key, let underlying as DecodeError):
      ImageFetchError.invalidImage(name: key.fileName, underlying)
    case let error as CacheError: ImageFetchError.cache(error)
    default: error
    }
  }
}
