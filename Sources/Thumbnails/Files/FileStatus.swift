#if canImport(Glibc)
  import Glibc
#endif

/// The size and modification time of a file, as `stat` reports them.
struct FileStatus: Equatable {
  /// Size in bytes.
  let size: Int
  /// Modification time, seconds since the epoch.
  let seconds: Int
  /// The nanoseconds of the modification time.
  let nanoseconds: Int

  /// `seconds.nanoseconds`, with nine digits after the dot.
  var modifiedText: String {
    let fraction = String(nanoseconds)
    return "\(seconds).\(String(repeating: "0", count: max(0, 9 - fraction.count)))\(fraction)"
  }

  /// Whether this file was modified at or after `other`.
  func isNotOlder(than other: FileStatus) -> Bool {
    (seconds, nanoseconds) >= (other.seconds, other.nanoseconds)
  }

  /// Reads the status of a path.
  /// - Returns: `nil` with `errno` set when `stat` fails.
  static func of(_ path: String) -> FileStatus? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return FileStatus(
      size: Int(info.st_size), seconds: Int(info.st_mtim.tv_sec),
      nanoseconds: Int(info.st_mtim.tv_nsec))
  }
}
