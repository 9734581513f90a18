import FixtureSupport
import ImageCodecs
import Testing

/// Every conformance fixture decodes to the exact pixels of libpng/djpeg (reference.tsv), or is
/// rejected when the table says it is invalid.
@Suite(.timeLimit(.minutes(30))) struct ReferencePixelsTests {
  static let rows = (try? ReferenceRow.load()) ?? []

  /// PNG as RGBA8, JPEG as RGB8 or gray8: the layouts the reference hashes were made in.
  static func referenceOptions(_ row: ReferenceRow) -> DecodeOptions {
    DecodeOptions(pixelFormat: row.mode == "RGBA" ? .rgba8 : .source)
  }

  @Test func tableIsComplete() {
    #expect(Self.rows.count == 205)
  }

  @Test(arguments: rows.filter { $0.expect == "valid" })
  func validFileMatchesReference(_ row: ReferenceRow) throws {
    let image = try ImageDecoder.decode(contentsOf: Fixtures.image(row.file), options: Self.referenceOptions(row))
    #expect(image.width == row.width && image.height == row.height)
    let hash = image.withUnsafeBytes { SHA256.hex($0) }
    #expect(hash == row.sha256 || hash == row.altSHA256, "\(row.file): pixels differ from the reference")
  }

  @Test(arguments: rows.filter { $0.oriented != nil })
  func orientedFileMatchesReference(_ row: ReferenceRow) throws {
    let image = try ImageDecoder.decode(contentsOf: Fixtures.image(row.file), options: Self.referenceOptions(row))
    #expect(image.orientation.rawValue == row.orientation)
    let upright = try image.oriented()
    #expect(upright.width == row.oriented!.width && upright.height == row.oriented!.height)
    #expect(upright.withUnsafeBytes { SHA256.hex($0) } == row.oriented!.sha256)
    #expect(upright.orientation == .up)
  }

  @Test(arguments: rows.filter { $0.expect == "valid-warn" })
  func fileWithHarmlessWarningDecodesCompletely(_ row: ReferenceRow) throws {
    // Our policy: extraneous bytes before a marker lose no pixels, so the file decodes exactly.
    let image = try ImageDecoder.decode(contentsOf: Fixtures.image(row.file), options: Self.referenceOptions(row))
    #expect(image.withUnsafeBytes { SHA256.hex($0) } == row.sha256)
  }

  @Test func memoryAndFileDecodesAgree() throws {
    for name in ["Landscape_3.jpg", "basn6a16.png", "jpg-cmyk-1.jpg", "testimgari.jpg"] {
      let fromFile = try ImageDecoder.decode(contentsOf: Fixtures.image(name))
      let fromMemory = try ImageDecoder.decode(try Fixtures.bytes(name))
      #expect(fromFile == fromMemory, "\(name)")
    }
  }
}
