import SystemFiles
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A download's `.part` file: kept bytes, appends after them, a FIFO refused without blocking.
@Suite(.timeLimit(.minutes(30))) struct WritableFileTests {
  @Test func keepsTheFirstBytesAndAppendsAfterThem() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let path = "\(directory)/a.part"
    try AtomicPublish.write(Array("0123456789".utf8), to: path)
    let file = try WritableFile(appendingTo: path, keeping: 4)
    #expect(file.size == 4)
    try Array("abc".utf8).withUnsafeBytes { try file.append($0) }
    try file.flush()
    file.close()
    #expect(try ReadableFile(path: path).readAll() == Array("0123abc".utf8))
    #expect(file.size == 7)
    #expect(throws: SystemError.self) { try [UInt8(1)].withUnsafeBytes { try file.append($0) } }
  }

  @Test func makesAMissingFileAndRefusesAFIFO() throws {
    let directory = try scratchDirectory()
    defer { removeTree(directory) }
    let fresh = try WritableFile(appendingTo: "\(directory)/new.part", keeping: 0)
    #expect(fresh.size == 0 && FileStatus.of("\(directory)/new.part")?.kind == .regular)
    let fifo = "\(directory)/fifo.part"
    try makeFIFO(fifo)
    let error = #expect(throws: SystemError.self) { _ = try WritableFile(appendingTo: fifo, keeping: 0) }
    #expect(error?.description == "\(fifo) is a FIFO, not a regular file")
  }
}
