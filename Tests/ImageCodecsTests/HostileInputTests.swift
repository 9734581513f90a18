import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// The project's own hostile PNGs (`Fixtures/hostile`, made by make_hostile.py): damage confined to
/// ancillary chunks is tolerated, bombs are defused, critical damage is rejected.
@Suite(.timeLimit(.minutes(30))) struct HostileInputTests {
  static func path(_ name: String) -> String { Fixtures.root.appendingPathComponent("Fixtures/hostile/\(name)").path }

  static func clean() throws -> Image { try ImageDecoder.decode(contentsOf: path("clean-rgb-16x8.png")) }

  @Test(arguments: ["broken-text-crc.png", "broken-iccp-zlib.png", "broken-ztxt-zlib.png"])
  func ancillaryDamageKeepsThePixels(_ name: String) throws {
    #expect(try ImageDecoder.decode(contentsOf: Self.path(name)) == Self.clean())
  }

  @Test(arguments: ["iccp-bomb.png", "ztxt-bomb.png"])
  func decompressionBombInAnAncillaryChunkIsDefused(_ name: String) throws {
    let clock = ContinuousClock()
    let start = clock.now
    let image = try ImageDecoder.decode(contentsOf: Self.path(name))
    #expect(clock.now - start < .seconds(10))
    #expect(image == (try Self.clean()))
  }

  @Test func hugeHeaderIsRejectedBeforeAllocating() throws {
    let error = #expect(throws: DecodeError.self) {
      try ImageDecoder.decode(contentsOf: Self.path("huge-65535x65535.png"))
    }
    #expect(error?.kind == .limitExceeded)
  }

  @Test(arguments: [
    ("idat-crc.png", DecodeError.Kind.corrupt), ("no-idat.png", .corrupt), ("missing-iend.png", .truncated),
  ])
  func criticalDamageIsRejected(_ name: String, _ kind: DecodeError.Kind) {
    let error = #expect(throws: DecodeError.self) { try ImageDecoder.decode(contentsOf: Self.path(name)) }
    #expect(error?.kind == kind)
  }

  @Test func formatComesFromTheBytesNotTheName() throws {
    let header = try ImageDecoder.probe(contentsOf: Self.path("png-named.jpg"))
    #expect(header.format == .png)
    #expect(try ImageDecoder.decode(contentsOf: Self.path("png-named.jpg")) == Self.clean())
  }
}

/// Progressive JPEGs with absurd scan counts (`Fixtures/hostile/make_scan_bomb.sh`).
@Suite(.timeLimit(.minutes(30))) struct ScanLimitTests {
  static func path(_ name: String) -> String { Fixtures.root.appendingPathComponent("Fixtures/hostile/\(name)").path }

  @Test func manyValidScansDecodeToTheSamePixels() throws {
    let image = try ImageDecoder.decode(contentsOf: Self.path("scans-99.jpg"))
    #expect(image == (try ImageDecoder.decode(contentsOf: Fixtures.image("testorig.jpg"))))
  }

  @Test func scanLimitIsConfigurable() {
    let options = DecodeOptions(limits: DecodeLimits(maxJPEGScans: 50))
    let error = #expect(throws: DecodeError.self) {
      try ImageDecoder.decode(contentsOf: Self.path("scans-99.jpg"), options: options)
    }
    #expect(error?.kind == .limitExceeded)
    #expect(error?.message == "JPEG has more than 50 scans")
  }

  @Test(arguments: [Strictness.strict, .lenient])
  func thousandsOfScansAreRefused(_ strictness: Strictness) {
    let error = #expect(throws: DecodeError.self) {
      try ImageDecoder.decode(contentsOf: Self.path("scans-2000.jpg"), options: DecodeOptions(strictness: strictness))
    }
    #expect(error?.kind == .limitExceeded)
  }
}
