import FoundationEssentials
import ImageCodecs
import ParseFetch

extension ImageFetcher {
  /// Loads an object's image for callers that do not use async/await.
  ///
  /// ```swift
  /// let task = fetcher.loadImage(of: photo, column: "MainImage", progress: { bar.update($0) }) {
  ///   result in …
  /// }
  /// task.cancel()  // completes with .failure(.cancelled)
  /// ```
  /// - Parameters:
  ///   - object: The class and object id.
  ///   - column: The file column.
  ///   - progress: Called as bytes arrive, on a background thread.
  ///   - completion: Called once, on a background thread, with the image or the error.
  /// - Returns: The running task; cancel it to stop the load.
  @discardableResult
  public func loadImage(
    of object: ParseObjectReference, column: String, progress: ProgressHandler? = nil,
    completion: @escaping @Sendable (Result<Image, ImageFetchError>) -> Void
  ) -> Task<Void, Never> {
    Task {
      do throws(ImageFetchError) {
        completion(.success(try await image(of: object, column: column, progress: progress)))
      } catch {
        completion(.failure(error))
      }
    }
  }
}
