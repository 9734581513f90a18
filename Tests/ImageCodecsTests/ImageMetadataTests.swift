import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// Comments written by the encoder and read back by `ImageMetadata`, without decoding pixels.
@Suite(.timeLimit(.minutes(30))) struct ImageMetadataTests {
  static let image: Image = {
    var bytes: [UInt8] = []
    for i in 0..<(12 * 8) { bytes += [UInt8(i), UInt8(255 - i), 40] }
    return Image(width: 12, height: 8, pixelFormat: .rgb8, bytes: bytes)!
  }()

  static let formats: [any ImageEncoding] = [
    JPEGEncoder(quality: 85), JPEGEncoder(quality: 90, progressive: true), PNGEncoder(),
  ]

  @Test(arguments: 0..<formats.count)
  func aCommentIsStoredAheadOfThePixelsAndReadBack(index: Int) throws {
    let format = Self.formats[index]
    let comment = "imgfetch-thumbnail/1 source=photo.jpg bytes=48213 out=256x171"
    let bytes = try ImageEncoder.encode(Self.image, as: format, comment: comment)
    let metadata = try ImageMetadata.read(bytes)
    #expect(metadata.format == format.format)
    #expect(metadata.comments == [comment])
    #expect(metadata.isComplete)
    // The file still decodes to the same pixels as without the comment.
    let plain = try ImageDecoder.decode(try ImageEncoder.encode(Self.image, as: format))
    #expect(try ImageDecoder.decode(bytes) == plain)
    // Cut short, it is no longer complete; the comment is still found in the head.
    let cut = try ImageMetadata.read(Array(bytes.dropLast(20)))
    #expect(!cut.isComplete && cut.comments == [comment])
  }

  @Test func whereTheCommentGoes() throws {
    let jpeg = try ImageEncoder.encode(Self.image, as: .jpeg(), comment: "hello")
    // SOI, the JFIF APP0 segment, then the COM segment.
    #expect(Array(jpeg[0..<4]) == [0xFF, 0xD8, 0xFF, 0xE0])
    let afterJFIF = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
    #expect(Array(jpeg[afterJFIF..<(afterJFIF + 9)]) == [0xFF, 0xFE, 0, 7] + Array("hello".utf8))
    let png = try ImageEncoder.encode(Self.image, as: .png(), comment: "hello")
    // Signature, IHDR (25 bytes), then a tEXt chunk "Comment\0hello".
    #expect(Array(png[33..<41]) == [0, 0, 0, 13] + Array("tEXt".utf8))
    #expect(Array(png[41..<54]) == Array("Comment".utf8) + [0] + Array("hello".utf8))
  }

  @Test func nonASCIITextGoesIntoAnInternationalTextChunkInPNG() throws {
    let comment = "source=Café Zürich.jpg 東京"
    let png = try ImageEncoder.encode(Self.image, as: .png(), comment: comment)
    #expect(Array(png[37..<41]) == Array("iTXt".utf8))
    #expect(try ImageMetadata.read(png).comments == [comment])
    #expect(
      try ImageMetadata.read(ImageEncoder.encode(Self.image, as: .jpeg(), comment: comment)).comments == [comment])
  }

  @Test func unusableCommentsAreEncodeErrors() {
    #expect(throws: EncodeError.self) { try ImageEncoder.encode(Self.image, as: .png(), comment: "a\u{0}b") }
    #expect(throws: EncodeError.self) { try ImageEncoder.encode(Self.image, as: .jpeg(), comment: "a\u{0}b") }
    do {
      _ = try ImageEncoder.encode(Self.image, as: .jpeg(), comment: String(repeating: "x", count: 65_534))
      Issue.record("a 65,534-byte JPEG comment was accepted")
    } catch {
      #expect(error.message.contains("65533"))
    }
    #expect(throws: Never.self) {
      try ImageEncoder.encode(Self.image, as: .jpeg(), comment: String(repeating: "x", count: 65_533))
    }
  }

  @Test func pngTextChunksOfEveryKindAreListedInOrder() throws {
    var png = PNGBuilder()
    png.header(width: 1, height: 1)
    png.chunk("tEXt", Array("Title".utf8) + [0] + Array("a title".utf8))
    png.chunk("zTXt", Array("Comment".utf8) + [0, 0, 0x78, 0x9C])  // compressed: not read
    png.chunk("iTXt", Array("Comment".utf8) + [0, 0, 0] + Array("en".utf8) + [0, 0] + Array("plain".utf8))
    png.chunk("iTXt", Array("Comment".utf8) + [0, 1, 0, 0, 0, 0x78])  // compressed: not read
    png.pixels([[7]])
    let metadata = try ImageMetadata.read(png.bytes)
    #expect(
      metadata.texts == [
        ImageMetadata.Text(keyword: "Title", text: "a title"), ImageMetadata.Text(keyword: "Comment", text: "plain"),
      ])
    #expect(metadata.isComplete)
  }

  @Test func textAfterTheImageDataIsNotLookedFor() throws {
    var png = PNGBuilder()
    png.header(width: 1, height: 1)
    png.chunk("IDAT", Zlib.stored([0, 7]))
    png.chunk("tEXt", Array("Comment".utf8) + [0] + Array("late".utf8))
    png.chunk("IEND", [])
    #expect(try ImageMetadata.read(png.bytes).texts.isEmpty)
  }

  @Test func theReadIsBoundedAndRefusesWhatIsNotAFileOrAnImage() throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // A comment beyond the bytes read is not found (nothing past the head is read).
    let long = String(repeating: "y", count: 6000)
    let path = directory.appendingPathComponent("long.jpg").path
    try Data(try ImageEncoder.encode(Self.image, as: .jpeg(), comment: long)).write(to: URL(fileURLWithPath: path))
    #expect(try ImageMetadata.read(contentsOf: path, headBytes: 4096).comments.isEmpty)
    #expect(try ImageMetadata.read(contentsOf: path).comments == [long])
    // A FIFO is refused at once, never waited on.
    let fifo = directory.appendingPathComponent("fifo.jpg").path
    #expect(mkfifo(fifo, 0o644) == 0)
    #expect { try ImageMetadata.read(contentsOf: fifo) } throws: { ($0 as? DecodeError)?.kind == .io }
    #expect { try ImageMetadata.read(contentsOf: directory.path + "/missing.jpg") } throws: {
      ($0 as? DecodeError)?.kind == .io
    }
    // A BMP is not an image imgfetch reads; a GIF's signature alone is a GIF, cut before its trailer.
    #expect { try ImageMetadata.read(Array("BM6\u{0}\u{0}\u{0}".utf8)) } throws: {
      ($0 as? DecodeError)?.kind == .notAnImage
    }
    let gif = try ImageMetadata.read(Array("GIF89a".utf8))
    #expect(gif.format == .gif && !gif.isComplete)
  }
}
