import FixtureSupport
import Foundation
import ParseFixtureSupport
import Testing

/// `--class` walks run as a user would, against the fixture Parse Server on 127.0.0.1: the total
/// of the progress bar, objects without the column, and servers that would make the walk loop.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ClassWalkTests {
  static let image = "basn0g02.png"

  /// Class Photo: `present` objects with a small PNG in MainImage, `absent` objects without it.
  static func server(present: [String], absent: [String] = [], faults: [[String: Any]] = []) async throws
    -> ParseFixture
  {
    var files: [String: String] = [:]
    var objects: [[String: Any]] = []
    for id in present {
      let name = "0123456789abcdef0123456789abcdef_\(id).png"
      files[name] = image
      objects.append(ParseFixture.photo(id, ParseFixture.file(name)))
    }
    objects += absent.map { ParseFixture.photo($0, nil) }
    return try await ParseFixture(files: files, seed: ["classes": ["Photo": objects], "faults": faults])
  }

  static func arguments(_ fixture: ParseFixture, cache: URL, _ more: [String]) -> [String] {
    [
      "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key", ParseFixture.restKey,
      "--cache-dir", cache.path,
    ] + more
  }

  /// The batch figures (`N of M items`) of every bar drawn on standard error, with whether that
  /// frame had an ETA and its percentage.
  static func frames(_ stderr: String) -> [(done: Int, total: Int, percent: Int?, hasETA: Bool)] {
    stderr.components(separatedBy: "\r").compactMap { frame in
      let words = frame.split(separator: " ")
      guard let of = words.firstIndex(of: "of"), of > 0, of + 2 < words.count,
        words[of + 2].hasPrefix("item"), let done = Int(words[of - 1]), let total = Int(words[of + 1])
      else { return nil }
      let percent = words.first.flatMap { $0.hasSuffix("%") ? Int($0.dropLast()) : nil }
      return (done, total, percent, frame.contains(", ETA "))
    }
  }

  /// The `N of M items` figures of every bar drawn on standard error.
  static func itemFigures(_ stderr: String) -> [(done: Int, total: Int)] {
    frames(stderr).map { ($0.done, $0.total) }
  }

  /// Issue 32: a walk draws one line for the batch, not one that hops between items: the items
  /// done of the total, the percentage, an ETA, and neither figure ever goes back across redraws.
  @Test func aWalkDrawsOneBatchLineThatNeverGoesBack() async throws {
    let present = (0..<12).map { String(UnicodeScalar(UInt8(ascii: "a") + UInt8($0))) + "000000000" }
    let fixture = try await Self.server(present: present)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let result = try runImgfetch(
      Self.arguments(
        fixture, cache: cache, ["--class", "Photo", "--column", "MainImage", "--progress", "always", "--jobs", "2"]))
    #expect(result.status == 0, "\(result.stderrText)")
    let frames = Self.frames(result.stderrText)
    #expect(frames.last?.done == 12 && frames.last?.total == 12 && frames.last?.percent == 100, "\(frames)")
    #expect(frames.allSatisfy { $0.total == 12 && $0.percent != nil })
    #expect(frames.contains { $0.hasETA }, "\(result.stderrText)")
    for (before, after) in zip(frames, frames.dropFirst()) {
      #expect(after.done >= before.done && after.percent! >= before.percent!, "\(before) then \(after)")
    }
    // No frame names an item: the batch line is the only line drawn.
    #expect(!result.stderrText.contains(".png  "), "\(result.stderrText)")
  }

  /// Issue 32: a class walk's plain lines start with the objectId (the source is not on the
  /// command line), then the cached file and the thumbnail; a single object's line does not.
  @Test func aWalksPlainLinesCarryTheObjectId() async throws {
    let present = ["b000000000", "d000000000", "f000000000"]
    let fixture = try await Self.server(present: present)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let result = try runImgfetch(
      Self.arguments(
        fixture, cache: cache, ["--class", "Photo", "--column", "MainImage", "--thumbnail", "8", "--jobs", "1"]))
    #expect(result.status == 0, "\(result.stderrText)")
    // In the order they finish: sorted by id here.
    let lines = result.stdoutText.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
      .sorted { ($0.first ?? "") < ($1.first ?? "") }
    #expect(lines.map { $0.first } == present)
    for (line, id) in zip(lines, present) {
      let entry = cache.path + "/0123456789abcdef0123456789abcdef_\(id).png"
      #expect(line == [id, entry, entry + ".thumb-8.jpg"])
    }
    let one = try runImgfetch(Self.arguments(fixture, cache: cache, ["Photo/b000000000", "--column", "MainImage"]))
    #expect(one.stdoutText == cache.path + "/0123456789abcdef0123456789abcdef_b000000000.png\n")
  }

  /// Issue 11.15: the bar's total counted objects without the column that the walk then skipped,
  /// so a finished batch showed `6 of 8 items`. Now the walk yields them (as failed items) and the count
  /// asks with the walk's own constraint: the last bar shows every item done of the total.
  @Test func theProgressTotalIsTheNumberOfItemsWalked() async throws {
    let present = ["b000000000", "d000000000", "f000000000", "h000000000", "j000000000", "l000000000"]
    let fixture = try await Self.server(present: present, absent: ["c000000000", "k000000000"])
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let result = try runImgfetch(
      Self.arguments(fixture, cache: cache, ["--class", "Photo", "--column", "MainImage", "--progress", "always"]))
    let figures = Self.itemFigures(result.stderrText)
    #expect(figures.last?.done == 8 && figures.last?.total == 8, "\(figures)")
    #expect(figures.allSatisfy { $0.total == 8 })
    #expect(result.stdoutText.split(separator: "\n").count == present.count)
    // Objects without the column are each a failed item, said once for the walk (24.4).
    #expect(
      result.stderrText.contains(
        "imgfetch: Photo: column MainImage is missing in 2 of 8 objects (c000000000, k000000000); "))
    #expect(!result.stderrText.contains("imgfetch: Photo/c000000000"))
    #expect(result.status == 2)
  }

  /// A misspelt column no longer passes silently: every object fails, said in one line with the
  /// count (issue 24.4; MessageTests has the whole text), exit 4 (bad data).
  @Test func aMisspeltColumnFailsEveryObject() async throws {
    let fixture = try await Self.server(present: ["a000000000", "b000000000"])
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let result = try runImgfetch(Self.arguments(fixture, cache: cache, ["--class", "Photo", "--column", "MainImgae"]))
    #expect(result.status == 4)
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderrText.hasPrefix(
        "imgfetch: Photo: column MainImgae is missing in 2 of 2 objects (a000000000, b000000000); "))
    #expect(result.stderrText.split(separator: "\n").count == 2)  // and "2 of 2 items failed"
  }

  /// Issue 11.10: behind a proxy that drops `$gt` every page is the first one; the walk ends with
  /// an error naming the class instead of looping. (`timeout` turns a hang into a failure.)
  @Test(arguments: ["ignoreGt", "omitObjectId"])
  func aWalkThatCannotProgressEndsWithAnErrorNamingTheClass(fault: String) async throws {
    let ids = (0..<5).map { "p\($0)00000000" }
    let fixture = try await Self.server(
      present: ids, faults: [["target": "classes/Photo", "kind": fault, "times": -1]])
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let binary = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let result = try runProcess(
      "/usr/bin/timeout",
      ["60", binary] + Self.arguments(fixture, cache: cache, ["--class", "Photo", "--column", "MainImage"]))
    #expect(result.status != 124, "the walk did not end")
    #expect(result.status != 0)
    #expect(result.stderrText.contains("class Photo: "))
    let requests = try await fixture.requests("classes/Photo")
    #expect(requests <= 3, "\(requests) queries")
  }
}
