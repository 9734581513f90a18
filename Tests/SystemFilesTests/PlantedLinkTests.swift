import SystemFiles
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Symbolic links planted where imgfetch writes (issue 30, items 6 and 7): a `.part` file that is a
/// link is refused, never followed; a link at an atomic write's destination is replaced, and what it
/// points to (a FIFO, a person's file) is never written.
@Suite(.timeLimit(.minutes(10))) struct PlantedLinkTests {
  @Test func aPartFileThatIsALinkIsRefusedAndItsTargetKept() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let victim = "\(directory)/notes.txt"
    try AtomicPublish.write(Array("precious\n".utf8), to: victim)
    let part = "\(directory)/photo.jpg.part"
    try #require(symlink(victim, part) == 0)
    let error = #expect(throws: SystemError.self) { _ = try WritableFile(appendingTo: part, keeping: 0) }
    #expect(error?.description == "\(part) is a symbolic link, not a regular file")
    #expect(try ReadableFile(path: victim).readAll() == Array("precious\n".utf8))
  }

  /// Runs `body` with a scratch directory holding a FIFO (`pipe`) whose read end is open, so a write
  /// into the FIFO would succeed rather than block: the tests see whether one happened.
  func withReadFIFO(_ body: (_ directory: String, _ fifo: String, _ reader: Int32) throws -> Void) throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let fifo = "\(directory)/pipe"
    try makeFIFO(fifo)
    let reader = try openReader(fifo)
    defer { close(reader) }
    try body(directory, fifo, reader)
  }

  @Test func aLinkAtTheDestinationIsReplacedNeverWrittenThrough() throws {
    try withReadFIFO { directory, fifo, reader in
      let path = "\(directory)/thumb.png"
      try #require(symlink(fifo, path) == 0)
      try AtomicPublish.write([1, 2, 3], to: path)
      #expect(try FileStatus.withoutFollowingLinks(path).kind == .regular, "the link replaced")
      #expect(try ReadableFile(path: path).readAll() == [1, 2, 3])
      #expect(readAvailable(reader).isEmpty, "nothing went into the FIFO")
      #expect(try FileStatus.withoutFollowingLinks(fifo).kind == .fifo)
    }
  }

  @Test func aFIFOAtTheDestinationIsRefusedUnlessWritingIntoItIsAsked() throws {
    try withReadFIFO { (_, fifo, reader) throws in
      #expect(throws: SystemError(operation: "write", path: fifo, reason: .notRegularFile(.fifo))) {
        try AtomicPublish.write([1, 2, 3], to: fifo)
      }
      #expect(readAvailable(reader).isEmpty)
      #expect(try FileStatus.withoutFollowingLinks(fifo).kind == .fifo)
    }
  }
}
