#if canImport(Glibc)
  import Glibc
#endif

/// A point in time as the file system keeps it: seconds and nanoseconds since the epoch.
public struct FileTime: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Whole seconds since 1970-01-01 UTC.
  public var seconds: Int
  /// Nanoseconds within the second, 0 ..< 1_000_000_000.
  public var nanoseconds: Int

  /// A time from its parts.
  /// - Parameters:
  ///   - seconds: Seconds since the epoch.
  ///   - nanoseconds: The fraction, in nanoseconds.
  public init(seconds: Int, nanoseconds: Int) {
    self.seconds = seconds
    self.nanoseconds = nanoseconds
  }

  init(_ time: timespec) { self.init(seconds: Int(time.tv_sec), nanoseconds: Int(time.tv_nsec)) }

  /// The time in seconds, as a floating-point number.
  public var secondsSinceEpoch: Double { Double(seconds) + Double(nanoseconds) / 1e9 }

  /// `seconds.nanoseconds`, with nine digits after the dot.
  public var description: String {
    let fraction = String(nanoseconds)
    return "\(seconds).\(String(repeating: "0", count: max(0, 9 - fraction.count)))\(fraction)"
  }

  /// Earlier times first.
  public static func < (lhs: FileTime, rhs: FileTime) -> Bool {
    (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
  }
}

/// What `stat` says about a file: kind, size, times and identity.
///
/// ```swift
/// let status = try FileStatus(path: "photo.jpg")
/// if status.kind == .regular { print(status.size) }
/// ```
public struct FileStatus: Sendable, Hashable {
  /// What the path names.
  public var kind: FileKind
  /// Size in bytes.
  public var size: Int
  /// Last modification of the contents.
  public var modified: FileTime
  /// Last access (reads, or an explicit touch).
  public var accessed: FileTime
  /// The device holding the file.
  public var device: UInt64
  /// The inode number on that device; with ``device`` it names the file.
  public var inode: UInt64

  /// The status of a path, following symbolic links (`stat`).
  /// - Parameter path: The path.
  /// - Throws: ``SystemError`` with the operation `stat`.
  public init(path: String) throws(SystemError) {
    var info = stat()
    guard stat(path, &info) == 0 else { throw .last("stat", path) }
    self.init(info)
  }

  /// The status of an open descriptor (`fstat`).
  /// - Parameters:
  ///   - descriptor: An open file descriptor.
  ///   - path: The path it was opened from, for the error.
  /// - Throws: ``SystemError`` with the operation `stat`.
  public init(descriptor: Int32, path: String) throws(SystemError) {
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw .last("stat", path) }
    self.init(info)
  }

  /// The status of a path without following a final symbolic link (`lstat`).
  /// - Parameter path: The path.
  /// - Returns: The status, whose kind may be ``FileKind/symbolicLink``.
  /// - Throws: ``SystemError`` with the operation `stat`.
  public static func withoutFollowingLinks(_ path: String) throws(SystemError) -> FileStatus {
    var info = stat()
    guard lstat(path, &info) == 0 else { throw .last("stat", path) }
    return FileStatus(info)
  }

  /// The status of a path, or `nil` when it cannot be read (missing, no permission).
  /// - Parameter path: The path.
  /// - Returns: The status, or nil.
  public static func of(_ path: String) -> FileStatus? { try? FileStatus(path: path) }

  init(_ info: stat) {
    kind = FileKind(mode: info.st_mode)
    size = Int(info.st_size)
    modified = FileTime(info.st_mtim)
    accessed = FileTime(info.st_atim)
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }

  /// Whether this and `other` are the same file (same device and inode), as `cp` checks.
  /// - Parameter other: Another status.
  /// - Returns: True for the same file.
  public func isSameFile(as other: FileStatus) -> Bool { device == other.device && inode == other.inode }
}
