import SystemFiles
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Path operations that are not about contents: removal, the access-time touch of a cache hit,
/// flushing, and the current and home directories.
@Suite(.timeLimit(.minutes(30))) struct FileSystemTests {
  @Test func removalSaysWhetherThereWasAnythingAndKeepsANonEmptyDirectory() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let file = "\(directory)/f"
    try AtomicPublish.write([1], to: file)
    #expect(try FileSystem.remove(file))
    #expect(try !FileSystem.remove(file), "nothing left to remove")
    try Directory.create("\(directory)/d/e")
    #expect(try !FileSystem.removeEmptyDirectory("\(directory)/d"), "not empty: it stays")
    #expect(try FileSystem.removeEmptyDirectory("\(directory)/d/e"))
    #expect(try FileSystem.removeEmptyDirectory("\(directory)/d"))
    #expect(FileStatus.of("\(directory)/d") == nil)
  }

  @Test func markingAccessMovesTheAccessTimeOnly() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let file = "\(directory)/entry"
    try AtomicPublish.write([1, 2, 3], to: file)
    var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 2_000_000, tv_nsec: 5)]
    #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
    try FileSystem.markAccessed(file)
    let status = try FileStatus(path: file)
    #expect(status.modified == FileTime(seconds: 2_000_000, nanoseconds: 5))
    #expect(status.accessed.seconds > 1_000_000)
    try FileSystem.flush(file)
    let missing = #expect(throws: SystemError.self) { try FileSystem.markAccessed("\(directory)/none") }
    #expect(missing?.isMissingFile == true)
  }

  @Test func currentAndHomeDirectories() throws {
    let current = try #require(FileSystem.currentDirectory())
    #expect(current.hasPrefix("/"))
    #expect(try FileStatus(path: current).isSameFile(as: try FileStatus(path: ".")))
    #expect(FileSystem.homeDirectory() == ProcessEnvironment.variable("HOME"))
    #expect(ProcessEnvironment.onlineProcessors >= 1)
  }
}
