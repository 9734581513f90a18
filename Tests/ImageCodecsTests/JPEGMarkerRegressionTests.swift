import Dispatch
import FixtureSupport
import Foundation
@_spi(Fuzzing) import ImageCodecs
import Testing

/// Issue 30, defects 3, 4 and 12, met as a library user meets them (the files:
/// `Fixtures/regressions/JPEGMarkers`, made by its `make.py`; README.md there says what each is).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct JPEGMarkerRegressionTests {
  static let directory = Fixtures.root.appendingPathComponent("Fixtures/regressions/JPEGMarkers")
  static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
  static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

  static let gapFiles = [
    "gap-300000-zero-bytes-after-app0-sequential.jpg", "gap-300000-zero-bytes-after-app0-progressive.jpg",
  ]

  /// Runs `body` on a thread of its own and waits at most `seconds` for it: a decode that loops
  /// forever fails its test (nil) instead of holding the run (the looping thread is left to the
  /// process's exit).
  static func within<T: Sendable>(seconds: Int, _ body: @escaping @Sendable () -> T) -> T? {
    let box = Outcome<T>()
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      box.value = body()
      done.signal()
    }
    thread.start()
    guard done.wait(timeout: .now() + .seconds(seconds)) == .success else { return nil }
    return box.value
  }

  static func outcome(_ body: () throws(DecodeError) -> Image) -> Result<Image, DecodeError> {
    do throws(DecodeError) { return .success(try body()) } catch { return .failure(error) }
  }

  /// libjpeg's decode of `bytes` alone (the engine never runs): the reference.
  static func libjpeg(_ bytes: [UInt8], scale: JPEGScale) throws -> Image {
    var options = DecodeOptions(jpegScale: scale)
    options.libjpegOnly = true
    return try ImageDecoder.decode(bytes, options: options)
  }

  /// The engine where it may run, whatever other decodes run meanwhile (it declines some 4:2:0
  /// decodes when other decodes are busy).
  static func engineOptions(_ scale: JPEGScale) -> DecodeOptions {
    var options = DecodeOptions(jpegScale: scale)
    options.alwaysUsesJPEGEngine = true
    return options
  }

  // MARK: Defect 3: more than the engine's file window of marker-free bytes between two segments

  @Test(arguments: gapFiles)
  func aLongMarkerFreeGapDecodesFromTheFileAtEveryScale(_ name: String) throws {
    let bytes = try Self.bytes(name)
    let path = Self.path(name)
    for eighths in 1...8 {
      let scale = JPEGScale(eighths: eighths)
      let reference = try Self.libjpeg(bytes, scale: scale)
      let options = Self.engineOptions(scale)
      let fromFile = Self.within(seconds: 60) {
        Self.outcome { () throws(DecodeError) in try ImageDecoder.decode(contentsOf: path, options: options) }
      }
      guard let fromFile else {
        Issue.record("\(name) at \(eighths)/8: decode(contentsOf:) did not finish in 60 s")
        return
      }
      #expect(try fromFile.get() == reference, "\(name) at \(eighths)/8 from the file")
      let fromMemory = Self.within(seconds: 60) {
        Self.outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: options) }
      }
      #expect(try fromMemory?.get() == reference, "\(name) at \(eighths)/8 from memory")
    }
  }

  /// The engine decoded it (it skips the gap as libjpeg does) rather than giving it up: every scan
  /// it decodes to its end is counted.
  @Test(arguments: gapFiles)
  func theEngineSkipsTheGapItself(_ name: String) throws {
    let path = Self.path(name)
    let counts = Self.within(seconds: 60) { () -> (JPEGEngineCounts, JPEGEngineCounts, Bool) in
      let options = Self.engineOptions(.eighth)
      let before = JPEGEngineCounts.current()
      let decoded = (try? ImageDecoder.decode(contentsOf: path, options: options)) != nil
      return (before, JPEGEngineCounts.current(), decoded)
    }
    guard let (before, after, decoded) = counts else {
      Issue.record("\(name): the 1/8 decode did not finish in 60 s")
      return
    }
    #expect(decoded)
    #expect(after.scans > before.scans, "\(name): the engine decoded no scan")
    #expect(after.gaveUp == before.gaveUp, "\(name): the engine gave up")
  }

  @Test(arguments: gapFiles)
  func aLongMarkerFreeGapValidates(_ name: String) throws {
    let path = Self.path(name)
    let bytes = try Self.bytes(name)
    let header = try ImageDecoder.probe(bytes)
    for options in [DecodeOptions(), Self.engineOptions(.eighth), Self.engineOptions(.quarter)] {
      let validated = Self.within(seconds: 60) { () -> Result<ImageHeader, DecodeError> in
        do throws(DecodeError) { return .success(try ImageDecoder.validate(contentsOf: path, options: options)) } catch {
          return .failure(error)
        }
      }
      guard let validated else {
        Issue.record("\(name) at \(options.jpegScale.eighths)/8: validate(contentsOf:) did not finish in 60 s")
        return
      }
      #expect(try validated.get() == header, "\(name) at \(options.jpegScale.eighths)/8")
    }
  }

  @Test(arguments: gapFiles)
  func aLongMarkerFreeGapStreams(_ name: String) throws {
    let bytes = try Self.bytes(name)
    let path = Self.path(name)
    for scale in [JPEGScale.eighth, .quarter, .full] {
      let reference = try Self.libjpeg(bytes, scale: scale)
      let options = Self.engineOptions(scale)
      let pushed = Self.within(seconds: 60) { StreamingDecoderTests.stream(bytes, options: options, maxChunk: 70_000) }
      #expect(try pushed?.get() == reference, "\(name) at \(scale.eighths)/8 streamed")
      let namingFile = Self.within(seconds: 60) {
        EighthScaleDecoderTests.streamNamingFile(bytes, file: path, options: options)
      }
      #expect(try namingFile?.get() == reference, "\(name) at \(scale.eighths)/8 streamed, its file given")
    }
  }

  // MARK: Defect 4: the hand-back to libjpeg reads the file the stream was given, not its path

  /// Streams the file at `path` (opened first, its descriptor given to the decoder), after
  /// `replace` has run: as a thumbnail does when the path is replaced between its open and the
  /// engine's hand-back.
  static func streamGivenDescriptor(path: String, options: DecodeOptions, replace: () throws -> Void) throws
    -> (Result<Image, DecodeError>, gaveUp: UInt64)
  {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    #expect(descriptor >= 0)
    let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let decoder = StreamingDecoder(options: options)
    decoder.fuzzingReadsFile(descriptor: descriptor)
    close(descriptor)  // the decoder keeps its own
    try replace()
    let before = JPEGEngineCounts.current()
    var image: Image?
    var row = 0
    func take() throws(DecodeError) {
      guard let size = decoder.outputSize, let format = decoder.outputPixelFormat else { return }
      if image == nil { image = try Image(width: size.width, height: size.height, pixelFormat: format) }
      row += try decoder.readRows(into: &image!, at: row)
    }
    let result = Self.outcome { () throws(DecodeError) in
      for start in stride(from: 0, to: bytes.count, by: 1000) {
        try decoder.append(Array(bytes[start..<min(bytes.count, start + 1000)]))
        try take()
      }
      try decoder.finish()
      try take()
      guard let image, row == image.height else {
        throw DecodeError(kind: .invalidArgument, format: nil, message: "rows missing: \(row)")
      }
      return image
    }
    return (result, JPEGEngineCounts.current().gaveUp - before.gaveUp)
  }

  @Test func aFileRenamedOverThePathIsNotWhatTheHandBackReads() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let original = try Self.bytes("dac-in-huffman-file.jpg")
    let path = scratch.appendingPathComponent("photo.jpg").path
    try Data(original).write(to: URL(fileURLWithPath: path))
    let other = scratch.appendingPathComponent("other.jpg").path
    try Data(try Fixtures.bytes("Landscape_1.jpg")).write(to: URL(fileURLWithPath: other))
    let (result, gaveUp) = try Self.streamGivenDescriptor(path: path, options: Self.engineOptions(.eighth)) {
      #expect(rename(other, path) == 0)
    }
    #expect(gaveUp == 1, "the engine handed the stream back to libjpeg")
    #expect(try result.get() == (try Self.libjpeg(original, scale: .eighth)))
  }

  @Test func aFIFOPutInThePathsPlaceIsNeitherOpenedNorWaitedFor() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let original = try Self.bytes("dac-in-huffman-file.jpg")
    let path = scratch.appendingPathComponent("photo.jpg").path
    try Data(original).write(to: URL(fileURLWithPath: path))
    // A writer that waits for the FIFO's first reader, then ends its data at once: a decoder that
    // opened the path would read nothing (not block), and the writer would know it was opened.
    final class Opened: @unchecked Sendable { var value = false }
    let opened = Opened()
    let writerDone = DispatchSemaphore(value: 0)
    let result = try Self.streamGivenDescriptor(path: path, options: Self.engineOptions(.eighth)) {
      #expect(unlink(path) == 0)
      #expect(mkfifo(path, 0o600) == 0)
      Thread {
        let writer = open(path, O_WRONLY | O_CLOEXEC)  // blocks until a reader opens the FIFO
        opened.value = true
        if writer >= 0 { close(writer) }
        writerDone.signal()
      }.start()
    }
    let nobodyOpened = writerDone.wait(timeout: .now() + .milliseconds(200)) == .timedOut
    #expect(nobodyOpened, "the decoder opened the FIFO at the path")
    // Release the writer: open the FIFO for reading ourselves (without waiting for data).
    let reader = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    #expect(writerDone.wait(timeout: .now() + .seconds(10)) == .success)
    if reader >= 0 { close(reader) }
    #expect(opened.value)
    #expect(result.gaveUp == 1, "the engine handed the stream back to libjpeg")
    #expect(try result.0.get() == (try Self.libjpeg(original, scale: .eighth)))
  }

  /// The file itself written over in place (the same descriptor, another image's bytes): the
  /// hand-back reads a header of another size, and says the file changed rather than decoding it
  /// into rows sized for the first (before, that wrote past the rows' buffers).
  @Test func aFileWrittenOverInPlaceIsAnErrorNotAnotherImage() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    let path = scratch.appendingPathComponent("photo.jpg").path
    try Data(try Self.bytes("dac-in-huffman-file.jpg")).write(to: URL(fileURLWithPath: path))
    let other = try Fixtures.bytes("Landscape_1.jpg")
    let (result, gaveUp) = try Self.streamGivenDescriptor(path: path, options: Self.engineOptions(.eighth)) {
      let descriptor = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
      #expect(descriptor >= 0)
      #expect(other.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == other.count)
      close(descriptor)
    }
    #expect(gaveUp == 1, "the engine handed the stream back to libjpeg")
    guard case .failure(let error) = result else {
      Issue.record("a stream whose file changed under it decoded")
      return
    }
    #expect(error.kind == .io && error.message == "the file changed while it was decoded")
  }

  /// The same file, not replaced, through every path: the hand-back's pixels are libjpeg's.
  @Test func theHandBackFileDecodesAsLibjpegDecodesIt() throws {
    let name = "dac-in-huffman-file.jpg"
    let bytes = try Self.bytes(name)
    for scale in [JPEGScale.eighth, .quarter, .full] {
      let reference = try Self.libjpeg(bytes, scale: scale)
      let options = Self.engineOptions(scale)
      #expect(try ImageDecoder.decode(contentsOf: Self.path(name), options: options) == reference)
      #expect(try EighthScaleDecoderTests.streamNamingFile(bytes, file: Self.path(name), options: options).get() == reference)
    }
  }

  // MARK: Defect 12: FF D8 is a JPEG's signature; what follows is the JPEG decoder's to judge

  @Test func soiAloneIsAJPEGSignature() throws {
    #expect(ImageFormat(sniffing: [0xFF, 0xD8]) == .jpeg)
    #expect(ImageFormat(sniffing: try Self.bytes("stray-byte-after-soi.jpg")) == .jpeg)
    #expect(ImageFormat(sniffing: [0xFF, 0xD9]) == nil)
    #expect(ImageFormat(sniffing: [0xFF]) == nil)
  }

  /// A stray byte between SOI and APP0 is extraneous data before a marker (djpeg: "1 extraneous
  /// bytes before marker 0xe0"), harmless: the pixels are the file's without it.
  @Test func aStrayByteAfterSOIDecodesAsTheFileWithoutIt() throws {
    let stray = try Self.bytes("stray-byte-after-soi.jpg")
    let clean = try Fixtures.bytes("testorig.jpg")
    let header = try ImageDecoder.probe(contentsOf: Self.path("stray-byte-after-soi.jpg"))
    #expect(header.format == .jpeg && header.width == 227 && header.height == 149)
    #expect(try ImageMetadata.read(stray).format == .jpeg)
    for eighths in 1...8 {
      let scale = JPEGScale(eighths: eighths)
      let reference = try Self.libjpeg(clean, scale: scale)
      #expect(try Self.libjpeg(stray, scale: scale) == reference, "libjpeg at \(eighths)/8")
      let options = Self.engineOptions(scale)
      #expect(try ImageDecoder.decode(stray, options: options) == reference, "\(eighths)/8 from memory")
      #expect(
        try ImageDecoder.decode(contentsOf: Self.path("stray-byte-after-soi.jpg"), options: options) == reference,
        "\(eighths)/8 from the file")
      #expect(try StreamingDecoderTests.stream(stray, options: options, maxChunk: 3).get() == reference, "\(eighths)/8 streamed")
    }
    #expect(try ImageDecoder.validate(contentsOf: Self.path("stray-byte-after-soi.jpg")) == header)
  }

  /// SOI and nothing, or SOI and text: a JPEG that is not valid, said as one (not "unrecognised
  /// signature"), with one verdict from memory, a file and a stream.
  @Test(arguments: ["soi-only.jpg", "soi-then-garbage.jpg"])
  func soiWithoutAnImageIsABadJPEG(_ name: String) throws {
    let bytes = try Self.bytes(name)
    let errors: [(String, DecodeError?)] = [
      ("memory", Self.outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes) }.error),
      ("file", Self.outcome { () throws(DecodeError) in try ImageDecoder.decode(contentsOf: Self.path(name)) }.error),
      ("eighth", Self.outcome { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: Self.engineOptions(.eighth)) }.error),
      ("stream", StreamingDecoderTests.stream(bytes, options: DecodeOptions(), maxChunk: 1).error),
    ]
    for (source, error) in errors {
      #expect(error?.kind == .truncated, "\(name) from \(source): \(String(describing: error))")
      #expect(error?.format == .jpeg, "\(name) from \(source)")
      #expect(error?.summary == "truncated JPEG", "\(name) from \(source)")
      #expect(error?.message.contains("signature") == false, "\(name) from \(source)")
    }
    #expect(throws: DecodeError.self) { try ImageDecoder.probe(bytes) }
    #expect(ImageFormat(sniffing: bytes) == .jpeg)
  }
}

/// What a thread of ``JPEGMarkerRegressionTests/within(seconds:_:)`` returned (read only after it
/// signalled).
private final class Outcome<T>: @unchecked Sendable {
  var value: T?
}
