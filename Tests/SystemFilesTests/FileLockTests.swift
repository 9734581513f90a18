import SystemFiles
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The cache's per-entry lock: exclusive across open files (so across processes), its file made
/// with its directory when missing and removed on release.
@Suite(.timeLimit(.minutes(30))) struct FileLockTests {
  @Test func isExclusiveMakesItsDirectoryAndRemovesItsFileOnRelease() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let path = "\(directory)/.locks/photo.jpg.lock"
    let held = try #require(try FileLock.tryAcquire(path))
    #expect(FileStatus.of(path)?.kind == .regular, "made, with its directory")
    #expect(try FileLock.tryAcquire(path) == nil, "a second taker (another open file) waits")
    held.unlock()
    #expect(FileStatus.of(path) == nil, "released: its file is gone")
    let again = try #require(try FileLock.tryAcquire(path))
    again.unlock()
  }

  @Test func aFileAKilledHolderLeftIsTakenAndRemoved() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let path = "\(directory)/photo.jpg.lock"
    try AtomicPublish.write([], to: path)  // no one holds it: its holder was killed
    let lock = try #require(try FileLock.tryAcquire(path))
    lock.unlock()
    #expect(FileStatus.of(path) == nil)
  }

  @Test func aMissingDirectoryThatCannotBeMadeIsAnError() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let file = "\(directory)/plain"
    try AtomicPublish.write([1], to: file)
    #expect(throws: SystemError.self) { _ = try FileLock.tryAcquire("\(file)/locks/a.lock") }
  }
}
