import SystemFiles

/// The status of a source or thumbnail file: SystemFiles' one `stat` wrapper.
typealias FileStatus = SystemFiles.FileStatus

extension SystemFiles.FileStatus {
  /// The modification time as `seconds.nanoseconds`, with nine digits after the dot.
  var modifiedText: String { modified.description }

  /// Whether this file was modified at or after `other`.
  func isNotOlder(than other: FileStatus) -> Bool { modified >= other.modified }
}
