import FixtureSupport
import Foundation
import ImageCodecs
import ParseFetch
import ParseFixtureSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// What imgfetch must never write or delete (issue 30, items 6 to 11): a file a symbolic link planted
/// in the cache points to, a FIFO behind a link at a thumbnail's name, a person's file at a
/// thumbnail's name, a folder of someone else's files taken for a cache, a dangling link in a walked
/// folder passed over in silence, two sources mirrored to one thumbnail. Every run sits under a
/// 60-second limit, so a hang (a FIFO opened, a lock taken for ever) fails its test.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ForeignFileTests {
  /// Runs imgfetch, killed after 60 s (status 137 then).
  func run(_ arguments: [String]) throws -> ProcessResult {
    let binary = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
    return try runProcess(binary, arguments, limit: .seconds(60))
  }

  func withDirectory(_ body: (String) throws -> Void) throws {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try body(directory.path)
  }

  func copy(_ fixture: String, to path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Fixtures.image(fixture), toPath: path)
  }

  func kind(_ path: String) -> mode_t {
    var info = stat()
    return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
  }

  func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

  func link(_ path: String, to target: String) throws {
    try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
  }

  static let notes = Data("my notes, not a thumbnail\n".utf8)

  // MARK: 6. a planted `.part` or lock file

  /// A shared cache where another user planted `<entry>.part` (or the entry's lock file, or the
  /// `.locks` folder itself) as a symbolic link to a file of the user running imgfetch.
  @Test(arguments: ["part", "lock", "locks folder"])
  func aLinkPlantedInTheCacheNeverWritesOrRemovesItsTarget(planted: String) async throws {
    let fixture = try await ParseFixture(files: ["photo.jpg": "Landscape_1.jpg"])
    try withDirectory { directory in
      let cacheDirectory = directory + "/cache"
      let cache = try DiskCache(directory: cacheDirectory)
      let url = fixture.fileURL("photo.jpg").absoluteString
      let key = CacheKey(url: url)
      let victim = directory + "/victim/\(key.fileName).lock"  // named as the lock, for the folder case
      try FileManager.default.createDirectory(atPath: directory + "/victim", withIntermediateDirectories: true)
      try Self.notes.write(to: URL(fileURLWithPath: victim))
      let plantedPath: String
      switch planted {
      case "part": plantedPath = cache.partPath(for: key)
      case "lock": plantedPath = cacheDirectory + "/.locks/\(key.fileName).lock"
      default:
        plantedPath = cacheDirectory + "/.locks"
        try FileManager.default.removeItem(atPath: plantedPath)
      }
      try link(plantedPath, to: planted == "locks folder" ? directory + "/victim" : victim)
      let result = try run([url, "--cache-dir", cacheDirectory, "--retries", "0", "--progress", "never"])
      #expect(contents(victim) == Self.notes, "the link's target unchanged, byte for byte")
      #expect(kind(cache.path(for: key)) != S_IFLNK, "no link became an entry")
      #expect(result.status == 5, "\(result.status): \(result.stderrText)")
      #expect(result.stdout.isEmpty)
      #expect(result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
      #expect(result.stderrText.contains(plantedPath), "\(result.stderrText)")
      #expect(result.stderrText.contains("a symbolic link, not a"), "\(result.stderrText)")
    }
  }

  // MARK: 7 and 8. what is at a thumbnail's name

  @Test func aPersonsFileAtAThumbnailsNameIsRefusedUnlessOverwriteIsSaid() throws {
    try withDirectory { directory in
      let source = directory + "/photo.jpg"
      try copy("Landscape_1.jpg", to: source)
      for output in [nil, directory + "/out"] {
        let thumbnail = (output ?? directory) + "/photo.jpg.thumb-64.jpg"
        try FileManager.default.createDirectory(atPath: output ?? directory, withIntermediateDirectories: true)
        try Self.notes.write(to: URL(fileURLWithPath: thumbnail))
        let options = ["--thumbnail", "64"] + (output.map { ["--output-dir", $0] } ?? [])
        let refused = try run(options + [source])
        #expect(refused.status == 5, "\(refused.stderrText)")
        #expect(refused.stdout.isEmpty)
        // The item's source leads the line when the message does not start with it.
        let item = output == nil ? "" : "\(source): "
        #expect(
          refused.stderrText
            == "imgfetch: \(item)\(thumbnail) holds a file imgfetch did not make (it carries no thumbnail stamp); "
            + "left as it is (--overwrite replaces it)\n")
        #expect(contents(thumbnail) == Self.notes, "the person's file still there")
        let overwritten = try run(options + ["--overwrite", source])
        #expect(overwritten.status == 0, "\(overwritten.stderrText)")
        #expect(overwritten.stdoutText == "\(source)\t\(thumbnail)\n")
        #expect(try ImageDecoder.probe(contentsOf: thumbnail).width == 64)
        // Now it is imgfetch's own: reused, or rebuilt, without --overwrite.
        #expect(try run(options + [source]).status == 0)
      }
    }
  }

  @Test func aLinkAtAThumbnailsNameIsReplacedNeverWrittenThrough() throws {
    try withDirectory { directory in
      let source = directory + "/a.png"
      try copy("basn6a08.png", to: source)
      let thumbnail = source + ".thumb-64.png"
      let fifo = directory + "/fifo"
      try #require(mkfifo(fifo, 0o600) == 0)
      // A reader is there: a write through the link would go into the pipe rather than block.
      let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
      try #require(reader >= 0)
      defer { close(reader) }
      try link(thumbnail, to: fifo)
      let refused = try run(["--thumbnail", "64", source])
      #expect(refused.status == 5, "\(refused.stderrText)")
      #expect(
        refused.stderrText
          == "imgfetch: \(thumbnail) holds a symbolic link, not a thumbnail imgfetch made; "
          + "left as it is (--overwrite replaces it)\n")
      #expect(kind(thumbnail) == S_IFLNK)
      let replaced = try run(["--thumbnail", "64", "--overwrite", source])
      #expect(replaced.status == 0, "\(replaced.stderrText)")
      #expect(kind(thumbnail) == S_IFREG, "the link replaced by the thumbnail")
      #expect(try ImageDecoder.probe(contentsOf: thumbnail).width == 32)
      #expect(kind(fifo) == S_IFIFO)
      var byte: UInt8 = 0
      #expect(read(reader, &byte, 1) <= 0, "nothing was written into the FIFO")
    }
  }

  // MARK: 9. a folder of someone else's files

  @Test(arguments: ["clear", "stats", "gc"])
  func aFolderHoldingALocksFolderIsNotTakenForACache(action: String) throws {
    try withDirectory { directory in
      let other = directory + "/tool-cache"
      try FileManager.default.createDirectory(atPath: other + "/.locks", withIntermediateDirectories: true)
      try Self.notes.write(to: URL(fileURLWithPath: other + "/notes.txt"))
      try Self.notes.write(to: URL(fileURLWithPath: other + "/budget-2024.ods"))
      let result = try run(["cache", action, "--cache-dir", other])
      #expect(result.status == 5, "\(result.stdoutText)")
      #expect(result.stdout.isEmpty)
      #expect(
        result.stderrText
          == "imgfetch: \(other) is not an imgfetch cache (no CACHEDIR.TAG, and it holds other files); choose another cache directory\n"
      )
      #expect(contents(other + "/notes.txt") == Self.notes)
      #expect(contents(other + "/budget-2024.ods") == Self.notes)
      #expect(!FileManager.default.fileExists(atPath: other + "/CACHEDIR.TAG"), "not tagged as imgfetch's")
    }
  }

  /// Another tool's cache carries a `CACHEDIR.TAG` too (the specification's signature, its own
  /// comment): it is still not imgfetch's.
  @Test func anotherToolsTaggedCacheIsNotImgfetchs() throws {
    try withDirectory { directory in
      let other = directory + "/tool-cache"
      try FileManager.default.createDirectory(atPath: other + "/.locks", withIntermediateDirectories: true)
      let tag = Data("\(DiskCache.tagSignature)\n# This file is a cache directory tag created by sometool.\n".utf8)
      try tag.write(to: URL(fileURLWithPath: other + "/CACHEDIR.TAG"))
      try Self.notes.write(to: URL(fileURLWithPath: other + "/notes.txt"))
      try Self.notes.write(to: URL(fileURLWithPath: other + "/.locks/index.lock"))
      let result = try run(["cache", "clear", "--cache-dir", other])
      #expect(result.status == 5)
      #expect(
        result.stderrText
          == "imgfetch: \(other) is not an imgfetch cache (its CACHEDIR.TAG is another program's); choose another cache directory\n"
      )
      #expect(contents(other + "/notes.txt") == Self.notes)
      #expect(contents(other + "/.locks/index.lock") == Self.notes)
      #expect(contents(other + "/CACHEDIR.TAG") == tag)
    }
  }

  // MARK: 10. a dangling link in a walked folder

  @Test func aDanglingImageLinkInAWalkedFolderFailsWithItsReason() throws {
    try withDirectory { directory in
      let photos = directory + "/photos"
      try copy("basn6a08.png", to: photos + "/a.png")
      try link(photos + "/gone.jpg", to: directory + "/nowhere.jpg")
      let verify = try run(["verify", photos])
      #expect(verify.status == 2, "\(verify.stdoutText)\(verify.stderrText)")
      #expect(
        (verify.stdoutText + verify.stderrText).contains(
          "\(photos)/gone.jpg: cannot read file: No such file or directory"), "\(verify.stdoutText)")
      let thumbnails = try run([photos, "--thumbnail", "64"])
      #expect(thumbnails.status == 2)
      #expect(thumbnails.stderrText.contains("\(photos)/gone.jpg"), "\(thumbnails.stderrText)")
    }
  }

  // MARK: 11. the mirror of --output-dir

  /// `photos/deep/../a.jpg` is `elsewhere/a.jpg` when `photos/deep` is a link to `../elsewhere/deep`:
  /// read lexically, it would be `photos/a.jpg`, and the two would share one thumbnail.
  @Test func twoFilesReachedThroughLinksKeepTheirOwnMirroredThumbnails() throws {
    try withDirectory { directory in
      try copy("Landscape_1.jpg", to: directory + "/photos/a.jpg")
      try copy("Portrait_2.jpg", to: directory + "/elsewhere/a.jpg")
      try FileManager.default.createDirectory(atPath: directory + "/elsewhere/deep", withIntermediateDirectories: true)
      try link(directory + "/photos/deep", to: "../elsewhere/deep")
      let out = directory + "/out"
      let first = directory + "/photos/a.jpg"
      let second = directory + "/photos/deep/../a.jpg"
      let result = try run([first, second, "--thumbnail", "64", "--output-dir", out])
      #expect(result.status == 0, "\(result.stderrText)")
      let paths = result.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t").last ?? "") }
      #expect(paths == [out + "/photos/a.jpg.thumb-64.jpg", out + "/elsewhere/a.jpg.thumb-64.jpg"])
      #expect(Set(paths).count == 2, "one thumbnail each")
      #expect(try ImageDecoder.probe(contentsOf: out + "/photos/a.jpg.thumb-64.jpg").width == 64)
      #expect(try ImageDecoder.probe(contentsOf: out + "/elsewhere/a.jpg.thumb-64.jpg").width == 43)
    }
  }
}
