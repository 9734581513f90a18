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
  /// A thumbnail's name is held by something imgfetch did not make: a file without a thumbnail
  /// stamp, or a symbolic link. It is left as it is (see ``ThumbnailOptions/replacesUnstampedFiles``;
  /// a FIFO, device or folder there is a ``write(_:)`` error, and is never replaced).
  case occupied(path: String, by: Occupant)
  /// The options cannot produce a thumbnail (a size of 0, or an upscaled thumbnail over the pixel
  /// limit).
  case invalidOptions(String)

  /// What holds a thumbnail's name, in ``occupied(path:by:)``.
  public enum Occupant: Sendable, Equatable {
    /// A regular file that carries no imgfetch thumbnail stamp (a person's file).
    case unstampedFile
    /// A symbolic link (whatever it points to).
    case symbolicLink
    /// With a ``ThumbnailOptions/nameTemplate``: the thumbnail of another source, named in its
    /// stamp (`a.jpg`'s `tn_a.jpg` met by `a.png`), which the template gives the same name.
    case anotherSourcesThumbnail(String)
  }

  /// The file the error concerns, when known.
  public var path: String? {
    switch self {
    case .decode(let error): error.path
    case .outOfMemory(let error): error.path
    case .encode(let error): error.path
    case .write(let error): error.path
    case .occupied(let path, _): path
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
    case .occupied(let path, .unstampedFile):
      "\(path) holds a file imgfetch did not make (it carries no thumbnail stamp); left as it is (--overwrite replaces it)"
    case .occupied(let path, .symbolicLink):
      "\(path) holds a symbolic link, not a thumbnail imgfetch made; left as it is (--overwrite replaces it)"
    case .occupied(let path, .anotherSourcesThumbnail(let source)):
      "\(path) holds the thumbnail of another source, \(source), which the name template gives the same name; left as it is (--overwrite replaces it)"
    case .invalidOptions(let message): "invalid thumbnail options: \(message)"
    }
  }
}
