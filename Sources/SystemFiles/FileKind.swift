#if canImport(Glibc)
  import Glibc
#endif

/// What a path names, from the `st_mode` of `stat`.
public enum FileKind: Sendable, Equatable, CustomStringConvertible {
  /// A regular file.
  case regular
  /// A directory.
  case directory
  /// A character device (`/dev/null`, a terminal).
  case characterDevice
  /// A block device (a disk).
  case blockDevice
  /// A named pipe.
  case fifo
  /// A Unix-domain socket.
  case socket
  /// A symbolic link (only from `lstat`).
  case symbolicLink
  /// Anything else.
  case unknown

  /// The kind of a `st_mode` value.
  /// - Parameter mode: The mode from `stat`.
  public init(mode: mode_t) {
    switch mode & S_IFMT {
    case S_IFREG: self = .regular
    case S_IFDIR: self = .directory
    case S_IFCHR: self = .characterDevice
    case S_IFBLK: self = .blockDevice
    case S_IFIFO: self = .fifo
    case S_IFSOCK: self = .socket
    case S_IFLNK: self = .symbolicLink
    default: self = .unknown
    }
  }

  /// With its article, for messages: `a FIFO`, `a directory`, `a character device`.
  public var description: String {
    switch self {
    case .regular: "a regular file"
    case .directory: "a directory"
    case .characterDevice: "a character device"
    case .blockDevice: "a block device"
    case .fifo: "a FIFO"
    case .socket: "a socket"
    case .symbolicLink: "a symbolic link"
    case .unknown: "an unknown kind of file"
    }
  }
}
