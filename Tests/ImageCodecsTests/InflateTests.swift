import FixtureSupport
import Foundation
@_spi(Fuzzing) import ImageCodecs
import Testing

/// imgfetch's own raw DEFLATE decoder (`imc_inflate.c`, which the PNG image-data path inflates with)
/// against zlib's raw inflate: it must never accept a stream zlib refuses, and must give zlib's
/// bytes, ending at zlib's last input byte, for every stream it accepts; it may give up on anything
/// (the caller then decodes with zlib or libpng). Streams: every PNG fixture's image data, Python's
/// zlib at every level and strategy and crafted fixed, stored and malformed blocks
/// (`Fixtures/inflate/generate.py`), cut into every kind of pieces and output rooms, then damaged.
@Suite(.timeLimit(.minutes(30))) struct InflateTests {
  static var directory: URL { Fixtures.root.appendingPathComponent("Fixtures/inflate") }

  static func streams(_ prefixes: [String]) throws -> [(name: String, bytes: [UInt8])] {
    try VerdictProofTests.files(under: directory)
      .filter { url in url.pathExtension == "deflate" && prefixes.contains { url.lastPathComponent.hasPrefix($0) } }
      .map { ($0.lastPathComponent, try VerdictProofTests.read($0)) }
  }

  /// The raw deflate data of a PNG's image data (the IDAT chunks joined, without zlib's 2-byte
  /// header; the Adler-32 and anything after stay, as bytes past the stream's end), nil when none.
  static func imageData(_ png: [UInt8]) -> [UInt8]? {
    guard png.count > 8, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
    var data: [UInt8] = []
    var at = 8
    while at + 8 <= png.count {
      let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
      guard length <= png.count - at - 8 else { break }
      if png[at + 4..<at + 8].elementsEqual("IDAT".utf8) { data += png[at + 8..<at + 8 + length] }
      at += 12 + length
    }
    return data.count > 2 ? Array(data.dropFirst(2)) : nil
  }

  /// The ways a stream is fed: whole, a byte at a time, random pieces; output rooms of one byte, a
  /// few, about a match, about the fast loop's margin, a row, unbounded.
  static let feeds: [(InflateCheck.Pieces, Int)] = [
    (.whole, 1 << 30), (.bytes, 1 << 30), (.random(seed: 7), 1 << 30), (.whole, 1), (.random(seed: 8), 3),
    (.whole, 258), (.random(seed: 9), 259), (.whole, 280), (.random(seed: 10), 281), (.bytes, 4096),
    (.random(seed: 11), 65536),
  ]

  /// Every feed of `bytes` agrees with zlib; the outcomes seen.
  static func check(_ bytes: [UInt8], name: String, feeds: [(InflateCheck.Pieces, Int)] = feeds) -> (
    problems: [String], outcomes: Set<Int32>
  ) {
    var problems: [String] = []
    var outcomes: Set<Int32> = []
    for (pieces, room) in feeds {
      let (agrees, outcome) = InflateCheck.differential(bytes, pieces: pieces, room: room)
      if !agrees { problems.append("\(name) \(pieces) room \(room): the inflater accepted it unlike zlib") }
      outcomes.insert(outcome)
    }
    return (problems, outcomes)
  }

  @Test func zlibAndCraftedStreamsAreAcceptedWithZlibsBytes() throws {
    var problems: [String] = []
    let streams = try Self.streams(["zlib-", "fixed-", "stored-", "dynamic-"])
    for (name, bytes) in streams {
      let expected = InflateCheck.zlib(bytes)
      guard case .accepted = expected else {
        problems.append("\(name): zlib refuses it")
        continue
      }
      let result = Self.check(bytes, name: name)
      problems += result.problems
      if result.outcomes != [0] { problems.append("\(name): outcomes \(result.outcomes), not all accepted") }
      #expect(InflateCheck.inflater(bytes) == expected, "\(name)")
      // The bytes after the stream's end are left: zlib's Adler-32 follows it in a PNG.
      #expect(InflateCheck.inflater(bytes + [1, 2, 3, 4, 5], pieces: .bytes) == expected, "\(name) + 5 bytes")
    }
    #expect(streams.count > 100)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// One stream for each of zlib's rejections: refused by both.
  @Test func everyZlibRejectionIsAGiveUp() throws {
    let streams = try Self.streams(["reject-"])
    for (name, bytes) in streams {
      #expect(InflateCheck.zlib(bytes) == .refused, "\(name): zlib takes it")
      for (pieces, room) in Self.feeds {
        #expect(InflateCheck.inflater(bytes, pieces: pieces, room: room) == .refused, "\(name) \(pieces) \(room)")
      }
    }
    #expect(streams.count >= 28)
  }

  /// The incomplete codes zlib takes (one code of length 1; no distance code): given up.
  @Test func incompleteCodesZlibTakesAreGivenUp() throws {
    let streams = try Self.streams(["giveup-"])
    for (name, bytes) in streams {
      guard case .accepted = InflateCheck.zlib(bytes) else {
        Issue.record("\(name): zlib refuses it")
        continue
      }
      #expect(InflateCheck.inflater(bytes) == .refused, "\(name)")
    }
    #expect(streams.count == 3)
  }

  /// A PNG's image data as every PNG fixture has it: what zlib takes, the inflater takes alike (or
  /// gives up on, only for the hostile files); damaged data is never accepted unlike zlib.
  @Test func everyPNGFixturesImageDataAgreesWithZlib() async throws {
    var problems: [String] = []
    var checked = 0
    var givenUp: [String] = []
    for directory in ["Fixtures/images", "Fixtures/hostile", "Fixtures/regressions", "Fixtures/png-rows"] {
      for url in VerdictProofTests.files(under: Fixtures.root.appendingPathComponent(directory)) {
        guard let data = Self.imageData(try VerdictProofTests.read(url)) else { continue }
        await Task.yield()
        checked += 1
        let feeds = data.count > 200_000 ? [Self.feeds[0], Self.feeds[2], Self.feeds[4]] : Self.feeds
        let result = Self.check(data, name: url.lastPathComponent, feeds: feeds)
        problems += result.problems
        if result.outcomes.contains(2) { givenUp.append(url.lastPathComponent) }
        if result.outcomes.contains(2) && directory != "Fixtures/hostile" {
          problems.append("\(url.lastPathComponent): gave up on image data zlib takes")
        }
      }
    }
    #expect(checked > 200)
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// Bit flips, changed bytes and truncations of many streams: whatever the inflater accepts, zlib
  /// accepts with the same bytes.
  @Test func damagedStreamsAreNeverAcceptedUnlikeZlib() async throws {
    var problems: [String] = []
    var generator = SplitMix(seed: 0xDEF1A7E)
    let streams = try Self.streams(["zlib-text", "zlib-runs", "zlib-noise-default", "fixed-", "stored-", "dynamic-"])
    var outcomes: [Int32: Int] = [:]
    for (name, original) in streams where !original.isEmpty {
      await Task.yield()
      for round in 0..<12 {
        var bytes = original
        switch round % 3 {
        case 0:
          for _ in 0..<(1 + Int(generator.next() % 3)) {
            let at = Int(generator.next() % UInt64(bytes.count))
            bytes[at] ^= UInt8(1) << (generator.next() % 8)
          }
        case 1:
          let at = Int(generator.next() % UInt64(bytes.count))
          bytes[at] = UInt8(truncatingIfNeeded: generator.next())
        default:
          bytes = Array(bytes[..<Int(generator.next() % UInt64(bytes.count))])
        }
        let pieces: InflateCheck.Pieces = round % 4 == 0 ? .bytes : .random(seed: generator.next())
        let room = round % 2 == 0 ? 1 + Int(generator.next() % 300) : 1 << 20
        let (agrees, outcome) = InflateCheck.differential(bytes, pieces: pieces, room: room)
        outcomes[outcome, default: 0] += 1
        if !agrees { problems.append("\(name) damaged #\(round): the inflater accepted it unlike zlib") }
      }
    }
    #expect(outcomes[0, default: 0] > 0 && outcomes[1, default: 0] > 100, "\(outcomes)")
    #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
  }

  /// Long matches: at distance 1 and 32768, and exactly as far back as the output goes (one more
  /// is a rejection, above), through every feed.
  @Test func longMatchesAtTheEdgesOfTheWindow() throws {
    for name in ["fixed-distance-1", "fixed-distance-32768", "fixed-distance-as-far-as-output", "zlib-far-default-9"] {
      let bytes = try VerdictProofTests.read(Self.directory.appendingPathComponent("\(name).deflate"))
      let expected = InflateCheck.zlib(bytes)
      guard case .accepted(let out, _) = expected else {
        Issue.record("\(name): zlib refuses it")
        continue
      }
      #expect(out.count > 2)
      for (pieces, room) in Self.feeds {
        #expect(InflateCheck.inflater(bytes, pieces: pieces, room: room) == expected, "\(name) \(pieces) \(room)")
      }
    }
  }
}
