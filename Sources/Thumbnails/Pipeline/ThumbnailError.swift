public import ImageCodecs

/// Why a thumbnail could not be made. Each case wraps the failing stage's error, which names the
/// file concerned.
public enum ThumbnailError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The source could not be read or is not a complete, valid image (the decoder's error, with its path).
  case decode(DecodeError)
  /// The thumbnail's own buffers (box shrink, filter, alpha, orientation) could not be allocated:
  /// memory ran short, the source is not at fault (a download that failed only this way is still
  /// valid). The error is of kind ``/ImageCodecs/DecodeError/Kind/outOfMemory`` and names the source.
  case outOfMemory(DecodeError)
  /// The thumbnail could not be encoded (the encoder's error, with the destination path).
  case encode(EncodeError)
  /// The thumbnail file, or a missing folder of an output folder's tree, could not be written
  /// (nothing is left at the destination).
  case write(AtomicFile.WriteError)
  /// The options cannot produce a thumbnail (a size of 0, or an upscaled thumbnail over the pixel
  /// limit).
  case invalidOptions(String)

  /// The file the error concerns, when known.
  public var path: String? {
    switch self {
    case .decode(let error): error.path
    case .outOfMemory(let error): error.path
    case .encode(let error): error.path
    case .write(let error): error.path
    case .invalidOptions: nil
    }
  }

  /// One line a user can act on, such as `photo.jpg: truncated JPEG: Premature end of JPEG file`.
  public var description: String {
    switch self {
    case .decode(let error): error.description
    case .outOfMemory(let error):
      "\(error.path.map { "\($0): " } ?? "")out of memory making the thumbnail: \(error.message)"
    case .encode(let error): error.description
    case .write(let error): error.description
    case .invalidOptions(let message): "invalid thumbnail options: \(message)"
    }
  }
}
