import SystemFiles
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A fresh directory under /tmp, removed by the caller with `removeTree`.
func scratchDirectory() throws -> String {
  var template = Array("/tmp/systemfiles-XXXXXX".utf8CString)
  let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
  try #require(made != nil)
  return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func removeTree(_ path: String) {
  for name in (try? Directory.names(in: path)) ?? [] {
    let child = "\(path)/\(name)"
    if FileStatus.of(child)?.kind == .directory { removeTree(child) } else { unlink(child) }
  }
  rmdir(path)
}

func makeFIFO(_ path: String) throws {
  try #require(mkfifo(path, 0o600) == 0)
}

/// Opens the read end of a FIFO without waiting for a writer.
func openReader(_ path: String) throws -> Int32 {
  let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
  try #require(descriptor >= 0)
  return descriptor
}

func readAvailable(_ descriptor: Int32) -> [UInt8] {
  var bytes: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    if got <= 0 { break }
    bytes += buffer[..<got]
  }
  return bytes
}

@Suite(.timeLimit(.minutes(10))) struct ReadableFileTests {
  @Test func aFIFOIsRefusedAtOnceWithOneLine() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    try makeFIFO("\(directory)/photo.jpg")
    // Without O_NONBLOCK this open would wait for a writer forever.
    #expect(throws: SystemError(operation: "open", path: "\(directory)/photo.jpg", reason: .notRegularFile(.fifo))) {
      try ReadableFile(path: "\(directory)/photo.jpg")
    }
    do { _ = try ReadableFile(path: "\(directory)/photo.jpg") } catch {
      #expect(error.description == "\(directory)/photo.jpg is a FIFO, not a regular file")
    }
  }

  @Test func devicesAndDirectoriesAreRefused() throws {
    #expect(throws: SystemError(operation: "open", path: "/dev/null", reason: .notRegularFile(.characterDevice))) {
      try ReadableFile(path: "/dev/null")
    }
    #expect(throws: SystemError(operation: "open", path: "/tmp", reason: .notRegularFile(.directory))) {
      try ReadableFile(path: "/tmp")
    }
  }

  @Test func aMissingFileSaysWhy() throws {
    do {
      _ = try ReadableFile(path: "/nonexistent/photo.jpg")
      Issue.record("opened a missing file")
    } catch {
      #expect(error.code == ENOENT)
      #expect(error.description == "/nonexistent/photo.jpg: cannot open: No such file or directory")
    }
  }

  @Test func aRegularFileReadsBackBlockingAndCloseOnExec() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    try AtomicPublish.write(Array("hello, file".utf8), to: "\(directory)/a.txt")
    let file = try ReadableFile(path: "\(directory)/a.txt")
    #expect(try file.readAll() == Array("hello, file".utf8))
    #expect(try file.read(count: 4, at: 7) == Array("file".utf8))
    #expect(file.status.size == 11 && file.status.kind == .regular)
    #expect(fcntl(file.fileDescriptor, F_GETFL) & O_NONBLOCK == 0)
    #expect(fcntl(file.fileDescriptor, F_GETFD) & FD_CLOEXEC != 0)
    #expect(throws: SystemError(operation: "read", path: "\(directory)/a.txt", reason: .errno(EFBIG))) {
      try file.readAll(limit: 10)
    }
  }
}

@Suite(.timeLimit(.minutes(10))) struct AtomicPublishTests {
  @Test func aRegularFileIsReplacedWholeAndNoTemporaryStays() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let path = "\(directory)/out.raw"
    try AtomicPublish.write(Array(repeating: 1, count: 100), to: path)
    let before = try FileStatus(path: path)
    try AtomicPublish.write(Array(repeating: 2, count: 50), to: path)
    #expect(try ReadableFile(path: path).readAll() == Array(repeating: 2, count: 50))
    #expect(try FileStatus(path: path).inode != before.inode, "a new file renamed over the old one")
    #expect(try Directory.names(in: directory) == ["out.raw"])
  }

  @Test func aFIFOAtTheDestinationIsWrittenWhenAskedAndStaysAFIFO() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let path = "\(directory)/pipe"
    try makeFIFO(path)
    let reader = try openReader(path)
    defer { close(reader) }
    let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0) }
    try AtomicPublish.write(bytes, to: path, writesIntoSpecialFiles: true)
    #expect(readAvailable(reader) == bytes)
    #expect(try FileStatus.withoutFollowingLinks(path).kind == .fifo)
    #expect(try Directory.names(in: directory) == ["pipe"], "no temporary file left beside it")
  }

  @Test func aFIFOWithoutAReaderFailsInsteadOfBlocking() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    try makeFIFO("\(directory)/pipe")
    do {
      try AtomicPublish.write([1, 2, 3], to: "\(directory)/pipe", writesIntoSpecialFiles: true)
      Issue.record("wrote to a FIFO nobody reads")
    } catch {
      #expect(error.description == "\(directory)/pipe: cannot write: a FIFO with no reader")
    }
    #expect(try FileStatus.withoutFollowingLinks("\(directory)/pipe").kind == .fifo)
  }

  @Test func devNullIsWrittenWhenAskedNotReplaced() throws {
    let before = try FileStatus.withoutFollowingLinks("/dev/null")
    try AtomicPublish.write(Array(repeating: 7, count: 4096), to: "/dev/null", writesIntoSpecialFiles: true)
    let after = try FileStatus.withoutFollowingLinks("/dev/null")
    #expect(after.kind == .characterDevice)
    #expect(after.isSameFile(as: before))
  }

  @Test func aDirectoryIsRefusedWithOneLine() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    #expect(throws: SystemError(operation: "write", path: directory, reason: .notRegularFile(.directory))) {
      try AtomicPublish.write([1], to: directory)
    }
  }

  @Test func renamePublishesAFinishedFile() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    try AtomicPublish.write([9, 9], to: "\(directory)/x.part", flushesToDisk: false)
    try AtomicPublish.rename("\(directory)/x.part", to: "\(directory)/x")
    #expect(try Directory.names(in: directory) == ["x"])
    #expect(try ReadableFile(path: "\(directory)/x").readAll() == [9, 9])
  }
}

@Suite(.timeLimit(.minutes(30))) struct FileStatusTests {
  @Test func timesOrderAndPrintWithNineDigits() {
    let early = FileTime(seconds: 10, nanoseconds: 5)
    let late = FileTime(seconds: 10, nanoseconds: 6)
    #expect(early < late)
    #expect(early.description == "10.000000005")
  }

  @Test func directoryCreateMakesParentsAndReportsWhetherNew() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    #expect(try Directory.create("\(directory)/a/b/c"))
    #expect(try !Directory.create("\(directory)/a/b/c"))
    #expect(FileStatus.of("\(directory)/a/b/c")?.kind == .directory)
  }

  @Test func errnoTextComesFromOnePlace() {
    #expect(SystemError.message(forCode: ENOENT) == "No such file or directory")
    #expect(SystemError.message(forCode: ENOSPC) == "No space left on device")
  }
}
