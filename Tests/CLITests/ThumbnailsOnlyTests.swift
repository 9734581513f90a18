import FixtureSupport
import Foundation
import ImageCodecs
import ParseFetch
import ParseFixtureSupport
import Testing

/// `--thumbnails-only` (issue 32): each download is validated and thumbnailed, then its original
/// leaves the cache; a later run finds the thumbnails current from their stamps and downloads
/// nothing. A local file is never removed: the option is a usage error with one.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ThumbnailsOnlyTests {
  static let count = 8
  static let broken = "0123456789abcdef0123456789abcdef_broken.jpg"

  /// Class Photo: `count` objects, each its own stored copy of one JPEG, and one whose file is cut short.
  static func server(count: Int = count, withBroken: Bool = false, image: String = "Landscape_1.jpg") async throws
    -> ParseFixture
  {
    var files: [String: String] = [:]
    var objects: [[String: Any]] = []
    for index in 0..<count {
      let id = String(format: "p%09d", index)
      let name = "0123456789abcdef0123456789abcdef_\(id).jpg"
      files[name] = image
      objects.append(ParseFixture.photo(id, ParseFixture.file(name)))
    }
    if withBroken {
      files[broken] = "truncated_jpeg.jpg"
      objects.append(ParseFixture.photo("broken0001", ParseFixture.file(broken)))
    }
    return try await ParseFixture(files: files, seed: ["classes": ["Photo": objects]])
  }

  static func walk(_ fixture: ParseFixture, cache: URL, _ more: [String]) throws -> ProcessResult {
    try runImgfetch(
      [
        "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key",
        ParseFixture.restKey, "--cache-dir", cache.path, "--class", "Photo", "--column", "MainImage",
      ] + more)
  }

  /// The fixture's first stored file by its URL: the URL, the cache entry it gets, and the arguments
  /// of a `--thumbnail 32 --thumbnails-only` run of it.
  static func firstFileByURL(_ fixture: ParseFixture, cache: URL) -> (url: String, entry: String, arguments: [String]) {
    let url = fixture.fileURL("0123456789abcdef0123456789abcdef_p000000000.jpg").absoluteString
    let entry = cache.path + "/" + CacheKey(url: url).fileName
    return (url, entry, [url, "--cache-dir", cache.path, "--thumbnail", "32", "--thumbnails-only"])
  }

  /// The cache directory's files by name.
  static func files(in cache: URL) throws -> [String: Date] {
    var found: [String: Date] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: cache.path) where name != ".locks" {
      let attributes = try FileManager.default.attributesOfItem(atPath: cache.appendingPathComponent(name).path)
      found[name] = attributes[.modificationDate] as? Date
    }
    return found
  }

  @Test func aClassWalkKeepsOnlyThumbnailsAndASecondRunDownloadsNothing() async throws {
    let fixture = try await Self.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let first = try Self.walk(fixture, cache: cache, ["--thumbnail", "32", "--thumbnails-only"])
    #expect(first.status == 0, "\(first.stderrText)")
    #expect(try await fixture.fileRequests() == Self.count)
    let stats = try DiskCache(directory: cache.path).statistics()
    #expect(stats.entries == 0 && stats.thumbnails == Self.count, "\(stats)")
    #expect(stats.partialDownloads == 0 && stats.temporaryFiles == 0)
    // Each line: the objectId, the object, its thumbnail; no cached original to name.
    let lines = first.stdoutText.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    #expect(lines.count == Self.count)
    for line in lines {
      #expect(line.count == 3, "\(line)")
      #expect(line[1] == "Photo/\(line[0])")
      #expect(line[2].hasPrefix(cache.path + "/") && line[2].hasSuffix(".jpg.thumb-32.jpg"))
      #expect(FileManager.default.fileExists(atPath: line[2]))
      #expect(!FileManager.default.fileExists(atPath: String(line[2].dropLast(".thumb-32.jpg".count))))
    }
    let made = try Self.files(in: cache)

    // The second run reads the stamps: nothing downloaded, nothing rewritten, every thumbnail reused.
    try await fixture.reset()
    let second = try Self.walk(fixture, cache: cache, ["--thumbnail", "32", "--thumbnails-only", "--json"])
    #expect(second.status == 0, "\(second.stderrText)")
    #expect(try await fixture.fileRequests() == 0)
    #expect(try Self.files(in: cache) == made)
    let objects = try second.stdoutText.split(separator: "\n").map {
      try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    #expect(objects.count == Self.count)
    let original = try FileManager.default.attributesOfItem(atPath: TestFiles.image("Landscape_1.jpg").path)
    for object in objects {
      #expect(object["reused"] as? Bool == true && object["cacheHit"] as? Bool == true, "\(object)")
      #expect(object["cachePath"] == nil, "\(object)")
      #expect(object["format"] is NSNull && object["width"] is NSNull, "the original was not read: \(object)")
      // The original's size, as the thumbnail's stamp recorded it.
      #expect(object["bytes"] as? Int == (original[.size] as? Int), "\(object)")
    }

    // Another size is not current: the originals are downloaded again, and removed again.
    try await fixture.reset()
    let other = try Self.walk(fixture, cache: cache, ["--thumbnail", "48", "--thumbnails-only", "--quiet"])
    #expect(other.status == 0, "\(other.stderrText)")
    #expect(try await fixture.fileRequests() == Self.count)
    let after = try DiskCache(directory: cache.path).statistics()
    #expect(after.entries == 0 && after.thumbnails == 2 * Self.count, "\(after)")
  }

  /// The class walk of issue 32's scale: 10,000 objects, four at a time. The cache ends holding
  /// thumbnails only, and the second run downloads nothing.
  @Test(.timeLimit(.minutes(10))) func tenThousandObjectsLeaveNoOriginalAndASecondRunDownloadsNothing()
    async throws
  {
    let count = 10_000
    let fixture = try await Self.server(count: count, image: "basn2c08.png")
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let arguments = [
      "--server", fixture.baseURL.absoluteString, "--app-id", ParseFixture.appID, "--rest-key",
      ParseFixture.restKey, "--cache-dir", cache.path, "--class", "Photo", "--column", "MainImage",
      "--thumbnail", "16", "--thumbnails-only", "--jobs", "4",
    ]
    let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    let first = try runProcess(imgfetch, arguments, limit: .seconds(400))
    #expect(first.status == 0, "\(first.stderrText.prefix(2000))")
    #expect(first.stdoutText.split(separator: "\n").count == count)
    #expect(try await fixture.fileRequests() == count)
    let stats = try DiskCache(directory: cache.path).statistics()
    #expect(stats.entries == 0 && stats.thumbnails == count, "\(stats)")
    #expect(stats.partialDownloads == 0 && stats.temporaryFiles == 0)

    try await fixture.reset()
    let second = try runProcess(imgfetch, arguments, limit: .seconds(300))
    #expect(second.status == 0, "\(second.stderrText.prefix(2000))")
    #expect(second.stdoutText.split(separator: "\n").count == count)
    #expect(try await fixture.fileRequests() == 0)
  }

  @Test func severalSizesAreKeptAndAreCurrentTogether() async throws {
    let fixture = try await Self.server(count: 3)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let sizes = ["--thumbnail", "16,64x", "--thumbnails-only"]
    let first = try Self.walk(fixture, cache: cache, sizes)
    #expect(first.status == 0, "\(first.stderrText)")
    let lines = first.stdoutText.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
    #expect(lines.count == 3 && lines.allSatisfy { $0.count == 4 }, "\(lines)")
    #expect(lines.allSatisfy { $0[2].hasSuffix(".thumb-16.jpg") && $0[3].hasSuffix(".thumb-64x.jpg") })
    let stats = try DiskCache(directory: cache.path).statistics()
    #expect(stats.entries == 0 && stats.thumbnails == 6, "\(stats)")

    try await fixture.reset()
    let second = try Self.walk(fixture, cache: cache, sizes)
    #expect(second.status == 0, "\(second.stderrText)")
    #expect(Set(second.stdoutText.split(separator: "\n")) == Set(first.stdoutText.split(separator: "\n")))
    #expect(try await fixture.fileRequests() == 0)

    // One size missing (removed by hand): that object alone is downloaded again.
    try FileManager.default.removeItem(atPath: lines[1][3])
    try await fixture.reset()
    let third = try Self.walk(fixture, cache: cache, sizes)
    #expect(third.status == 0, "\(third.stderrText)")
    #expect(try await fixture.fileRequests() == 1)
    #expect(FileManager.default.fileExists(atPath: lines[1][3]))
    #expect(try DiskCache(directory: cache.path).statistics().entries == 0)
  }

  @Test func originalsAnEarlierRunKeptAreRemovedWithoutADownload() async throws {
    let fixture = try await Self.server(count: 3)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let kept = try Self.walk(fixture, cache: cache, ["--thumbnail", "32", "--quiet"])
    #expect(kept.status == 0, "\(kept.stderrText)")
    #expect(try DiskCache(directory: cache.path).statistics().entries == 3)
    try await fixture.reset()
    let only = try Self.walk(fixture, cache: cache, ["--thumbnail", "32", "--thumbnails-only", "--json"])
    #expect(only.status == 0, "\(only.stderrText)")
    #expect(try await fixture.fileRequests() == 0)
    let stats = try DiskCache(directory: cache.path).statistics()
    #expect(stats.entries == 0 && stats.thumbnails == 3, "\(stats)")
    // The header was read before the original went.
    #expect(only.stdoutText.split(separator: "\n").allSatisfy { $0.contains(#""format":"jpeg""#) }, "\(only.stdoutText)")
  }

  @Test func anInvalidDownloadLeavesNeitherAnOriginalNorAThumbnail() async throws {
    let fixture = try await Self.server(count: 1, withBroken: true)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let run = try Self.walk(fixture, cache: cache, ["--thumbnail", "32", "--thumbnails-only"])
    #expect(run.status == 2, "one of two failed: \(run.status) \(run.stderrText)")
    #expect(run.stderrText.contains("broken0001") && run.stderrText.contains("truncated JPEG"), "\(run.stderrText)")
    let names = Set(try Self.files(in: cache).keys)
    #expect(!names.contains { $0.contains("broken") }, "\(names)")
    #expect(try DiskCache(directory: cache.path).statistics().thumbnails == 1)
  }

  /// A URL, and what `--dry-run` says before and after: a download and the original's removal, then
  /// the thumbnail that stands for it.
  @Test func aURLKeepsOnlyItsThumbnailAndTheDryRunSaysSo() async throws {
    let fixture = try await Self.server(count: 1)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let (url, entry, arguments) = Self.firstFileByURL(fixture, cache: cache)
    let before = try runImgfetch(arguments + ["--dry-run"])
    #expect(before.status == 0, "\(before.stderrText)")
    #expect(
      before.stdoutText
        == "would download \(url) to \(entry)\n"
        + "would remove \(entry) once its thumbnails are written (--thumbnails-only)\n")
    #expect(try await fixture.fileRequests() == 0)

    let run = try runImgfetch(arguments)
    #expect(run.status == 0, "\(run.stderrText)")
    #expect(run.stdoutText == "\(url)\t\(entry).thumb-32.jpg\n")
    #expect(!FileManager.default.fileExists(atPath: entry))
    let thumbnail = try ImageDecoder.decode(contentsOf: entry + ".thumb-32.jpg")
    #expect(thumbnail.width == 32 && thumbnail.height == 21)

    let after = try runImgfetch(arguments + ["--dry-run"])
    #expect(after.stdoutText == "up to date: \(entry).thumb-32.jpg from \(url)\n", "\(after.stdoutText)")
    let again = try runImgfetch(arguments)
    #expect(again.status == 0 && again.stdoutText == run.stdoutText)
    #expect(try await fixture.fileRequests() == 1)
  }

  /// A class walk's dry run names the removal too (its entries are named by the query a dry run
  /// does not send), and sends no request.
  @Test func theDryRunOfAClassSaysItsOriginalsWouldBeRemoved() async throws {
    let fixture = try await Self.server(count: 1)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let run = try Self.walk(fixture, cache: cache, ["--thumbnail", "32", "--thumbnails-only", "--dry-run"])
    #expect(run.status == 0, "\(run.stderrText)")
    #expect(
      run.stdoutText
        == "would query class Photo (column MainImage) and download its file unless it is cached\n"
        + "would remove the file of class Photo (column MainImage) once its thumbnails are written "
        + "(--thumbnails-only)\n")
    let json = try Self.walk(fixture, cache: cache, ["--thumbnail", "32", "--thumbnails-only", "--dry-run", "--json"])
    #expect(json.stdoutText.split(separator: "\n").last?.contains(#""action":"removeOriginal""#) == true)
    let (queries, files) = (try await fixture.requests("classes/Photo"), try await fixture.fileRequests())
    #expect(queries == 0 && files == 0, "a dry run sends no request")
  }

  /// A thumbnail that cannot be written (here a folder stands where it goes) fails the item and
  /// leaves the validated original in the cache; once the thumbnail can be written, the next run
  /// makes it from that original without downloading again, and then removes it.
  @Test func anOriginalWhoseThumbnailCannotBeWrittenIsKeptForTheNextRun() async throws {
    let fixture = try await Self.server(count: 1)
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let (_, entry, arguments) = Self.firstFileByURL(fixture, cache: cache)
    _ = try DiskCache(directory: cache.path)  // its CACHEDIR.TAG, so the folder below is in imgfetch's cache
    try FileManager.default.createDirectory(atPath: entry + ".thumb-32.jpg", withIntermediateDirectories: true)
    let failed = try runImgfetch(arguments)
    #expect(failed.status == 5, "\(failed.status) \(failed.stderrText)")
    #expect(failed.stderrText.contains(entry + ".thumb-32.jpg"), "\(failed.stderrText)")
    let photo = try ImageDecoder.decode(contentsOf: TestFiles.image("Landscape_1.jpg").path)
    #expect(try ImageDecoder.decode(contentsOf: entry).bytes == photo.bytes, "the original is kept, whole")

    try FileManager.default.removeItem(atPath: entry + ".thumb-32.jpg")
    let next = try runImgfetch(arguments)
    #expect(next.status == 0, "\(next.stderrText)")
    #expect(try await fixture.fileRequests() == 1, "the first run's download only")
    #expect(!FileManager.default.fileExists(atPath: entry))
    #expect(try ImageDecoder.decode(contentsOf: entry + ".thumb-32.jpg").width == 32)
  }

  @Test func aLocalFileIsAUsageErrorAndIsLeftAsItIs() throws {
    let folder = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let photo = folder.appendingPathComponent("photo.jpg")
    try FileManager.default.copyItem(at: TestFiles.image("Landscape_1.jpg"), to: photo)
    let run = try runImgfetch([photo.path, "--thumbnail", "32", "--thumbnails-only"])
    #expect(run.status == 1)
    #expect(
      run.stderrText
        == "imgfetch: --thumbnails-only removes downloaded originals from the cache, never a local file "
        + "(\(photo.path) is one) (see imgfetch --help)\n")
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["photo.jpg"])
    let alone = try runImgfetch(["https://127.0.0.1:9/x.jpg", "--thumbnails-only"])
    #expect(alone.status == 1)
    #expect(alone.stderrText.hasPrefix("imgfetch: --thumbnails-only goes with --thumbnail SIZE"), "\(alone.stderrText)")
  }
}
