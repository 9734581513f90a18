/// Why an image could not be probed or decoded.
///
/// The ``description`` is one line a user can act on, for example
/// `photo.jpg: truncated JPEG: Premature end of JPEG file`.
public struct DecodeError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The kind of failure.
  public enum Kind: String, Sendable, Equatable {
    /// The bytes are not a PNG, JPEG, WebP, GIF, HEIC or AVIF file (or the file is empty).
    case notAnImage
    /// The data is damaged: a bad checksum, compressed stream, Huffman table or marker, or no pixel data.
    case corrupt
    /// The data ends before the image does.
    case truncated
    /// A valid file using a feature imgfetch does not decode (12-bit or lossless JPEG).
    case unsupported
    /// The image is larger than the decode limits allow.
    case limitExceeded
    /// Memory ran out inside the codec library.
    case outOfMemory
    /// The file could not be opened or read.
    case io
    /// The caller's arguments were unusable (for example a buffer too small).
    case invalidArgument
  }

  /// The kind of failure.
  public let kind: Kind
  /// The format, when the magic bytes were recognised.
  public let format: ImageFormat?
  /// The library's message (or ours), without the path.
  public let message: String
  /// The file the error concerns, when decoding from a path.
  public var path: String?

  /// Creates an error.
  /// - Parameters:
  ///   - kind: The kind of failure.
  ///   - format: The format, if known.
  ///   - message: What went wrong, in one line.
  ///   - path: The file, if known.
  public init(kind: Kind, format: ImageFormat?, message: String, path: String? = nil) {
    self.kind = kind
    self.format = format
    self.message = message
    self.path = path
  }

  /// A short phrase for the kind, such as `truncated JPEG` or `not an image`.
  public var summary: String {
    let name = format?.description ?? "image"
    switch kind {
    case .notAnImage: return "not an image"
    case .corrupt: return "corrupt \(name)"
    case .truncated: return "truncated \(name)"
    case .unsupported: return "unsupported \(name)"
    case .limitExceeded: return "\(name) over a decode limit"
    case .outOfMemory: return "out of memory decoding \(name)"
    case .io: return "cannot read file"
    case .invalidArgument: return "invalid decode request"
    }
  }

  /// `path: summary: message`, one line.
  public var description: String {
    let prefix = path.map { "\($0): " } ?? ""
    return "\(prefix)\(summary): \(message)"
  }
}
