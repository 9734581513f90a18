import FoundationEssentials

/// The role of what brings a file's bytes to disk for a ``FileFetcher``, in the manner of Nuke's
/// `DataLoading`: ``Downloader`` is the default; a test can give an in-process fake.
public protocol DataLoading: Sendable {
  /// Downloads `url` into `partFile`, resuming from the bytes it already holds.
  /// - Parameters:
  ///   - url: The file's URL.
  ///   - partFile: The path of the file to write; created when missing.
  ///   - headers: Extra request headers.
  ///   - headersOrigin: The only origin that receives `headers` (`url`'s own when nil).
  ///   - consumer: Makes, for each attempt, what sees the body as it is written: it gets the
  ///     whole file from byte 0 (a resumed attempt first hands it the bytes already on disk),
  ///     then ``DownloadConsumer/finish(file:)`` once the file is complete. Its error ends the
  ///     transfer at once and is thrown unchanged.
  ///   - progress: Called as bytes arrive.
  /// - Returns: The size of the complete file.
  func download(
    from url: URL, to partFile: String, headers: [String: String], headersOrigin: URL?,
    consumer: DownloadConsumerFactory?, progress: ProgressHandler?
  ) async throws -> Int64
}

/// Sees one download attempt's body while it is written to the `.part` file, such as a
/// decoder that validates the file as it arrives.
///
/// Its methods are called one at a time, in order, off Swift's cooperative pool (on a serial
/// queue of the attempt's own), so blocking CPU work there holds up no task.
public protocol DownloadConsumer: AnyObject {
  /// Takes the next bytes of the file; throwing rejects the download and stops the transfer.
  func consume(_ bytes: UnsafeRawBufferPointer) throws
  /// Whether the consumer wants what is left of an ended transfer in one piece, through
  /// ``consumeLast(_:)`` (up to 32 MiB; a decoder that knows it has every byte can split its work).
  /// Asked before each read; by default `false`: pieces of at most 256 KiB, so a transfer costs one
  /// small read buffer however far the network runs ahead.
  var takesTheRestAtOnce: Bool { get }
  /// Takes the last bytes of the file, when they are known to be the last before ``finish(file:)``
  /// (the transfer had ended when they were read); by default as ``consume(_:)``.
  func consumeLast(_ bytes: UnsafeRawBufferPointer) throws
  /// Called once after the last byte, with the complete file; throwing rejects the download.
  func finish(file: String) throws
}

extension DownloadConsumer {
  /// `false`: the rest comes in read-sized pieces.
  public var takesTheRestAtOnce: Bool { false }
  /// Takes the last bytes as any others: ``consume(_:)``.
  public func consumeLast(_ bytes: UnsafeRawBufferPointer) throws { try consume(bytes) }
}

/// Makes a fresh ``DownloadConsumer`` for each attempt of a download.
public typealias DownloadConsumerFactory = @Sendable () -> any DownloadConsumer

extension Downloader: DataLoading {}
