import FixtureSupport
import Foundation
import ImageCodecs
import ParseFetch
import ParseFixtureSupport
import Testing
import Thumbnails

/// Folders in, a folder out (issue 22.4), run as a user runs it (the built binary, in a process):
/// folder operands walked (`-r` for subfolders), `--output-dir` mirroring the tree, and re-runs that
/// print nothing but the results.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct FolderCommandTests {
  static func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let url = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url.path)
  }

  static func copy(_ fixture: String, to path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Fixtures.image(fixture), toPath: path)
  }

  /// Every path below `directory`, relative, sorted.
  static func tree(_ directory: String) -> [String] {
    ((FileManager.default.subpaths(atPath: directory)) ?? []).sorted()
  }

  static func objects(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
  }

  static func size(of path: String) throws -> [Int] {
    let header = try ImageDecoder.probe(contentsOf: path)
    return [header.width, header.height]
  }

  /// `photos/`: a.jpg (1800x1200), b.png (32x32, alpha), noext (a JPEG without an extension,
  /// Landscape_3: 1800x1200 stored, EXIF orientation 3), notes.txt, a hidden file and a hidden
  /// folder, a FIFO named as a JPEG, and `2024/` with c.jpg (1200x1800), a link to ../a.jpg and a link
  /// to its parent folder (a loop, if it were followed).
  static func makePhotos(in directory: String) throws -> String {
    let photos = directory + "/photos"
    try copy("Landscape_1.jpg", to: photos + "/a.jpg")
    try copy("basn6a08.png", to: photos + "/b.png")
    try copy("Landscape_3.jpg", to: photos + "/noext")
    try Data("not an image\n".utf8).write(to: URL(fileURLWithPath: photos + "/notes.txt"))
    try copy("Landscape_5.jpg", to: photos + "/.hidden.jpg")
    try copy("Landscape_5.jpg", to: photos + "/.cache/x.jpg")
    #expect(mkfifo(photos + "/pipe.jpg", 0o644) == 0)
    try copy("Portrait_2.jpg", to: photos + "/2024/c.jpg")
    try FileManager.default.createSymbolicLink(atPath: photos + "/2024/link.jpg", withDestinationPath: "../a.jpg")
    try FileManager.default.createSymbolicLink(atPath: photos + "/2024/loop", withDestinationPath: "..")
    return photos
  }

  static func line(_ source: String, _ thumbnail: String) -> String { "\(source)\t\(thumbnail)\n" }

  @Test func aFolderIsWalkedAtItsTopLevelAndWithRecursiveItsSubfolders() throws {
    try Self.withTemporaryDirectory { directory in
      let photos = try Self.makePhotos(in: directory)
      let top = try runImgfetch([photos, "--thumbnail", "64"])
      #expect(top.status == 0, "\(top.stderrText)")
      // Sorted; the text file, hidden names, the FIFO and the subfolder left out without a word.
      #expect(
        top.stdoutText
          == Self.line(photos + "/a.jpg", photos + "/a.jpg.thumb-64.jpg")
          + Self.line(photos + "/b.png", photos + "/b.png.thumb-64.png")
          + Self.line(photos + "/noext", photos + "/noext.thumb-64.jpg"))
      #expect(top.stderrText.isEmpty)
      #expect(try Self.size(of: photos + "/a.jpg.thumb-64.jpg") == [64, 43])
      #expect(try Self.size(of: photos + "/b.png.thumb-64.png") == [32, 32])  // not enlarged
      #expect(try Self.size(of: photos + "/noext.thumb-64.jpg") == [64, 43])  // turned upright (180 degrees)
      #expect(Self.tree(photos + "/2024") == ["c.jpg", "link.jpg", "loop"])

      // -r: the subfolder's files at its place in the order ("2024" sorts before "a.jpg"); the link
      // to a file is a source under its own name, the link to a folder is not followed. The
      // thumbnails of the first run are met and skipped without a line, and counted.
      let deep = try runImgfetch([photos, "-r", "--thumbnail", "64"])
      #expect(deep.status == 0, "\(deep.stderrText)")
      #expect(
        deep.stdoutText
          == Self.line(photos + "/2024/c.jpg", photos + "/2024/c.jpg.thumb-64.jpg")
          + Self.line(photos + "/2024/link.jpg", photos + "/2024/link.jpg.thumb-64.jpg")
          + Self.line(photos + "/a.jpg", photos + "/a.jpg.thumb-64.jpg")
          + Self.line(photos + "/b.png", photos + "/b.png.thumb-64.png")
          + Self.line(photos + "/noext", photos + "/noext.thumb-64.jpg"))
      #expect(deep.stderrText == "imgfetch: 5 thumbnails, 3 reused, 3 own thumbnails skipped\n")
      #expect(try Self.size(of: photos + "/2024/c.jpg.thumb-64.jpg") == [43, 64])
      #expect(try Self.size(of: photos + "/2024/link.jpg.thumb-64.jpg") == [64, 43])
      #expect(!FileManager.default.fileExists(atPath: photos + "/.cache/x.jpg.thumb-64.jpg"))
      #expect(!FileManager.default.fileExists(atPath: photos + "/.hidden.jpg.thumb-64.jpg"))
    }
  }

  /// `imgfetch *.jpg --thumbnail 256` run twice: the glob now matches the thumbnails too.
  @Test func aSecondRunPrintsNothingButTheResults() throws {
    try Self.withTemporaryDirectory { directory in
      let sources = [directory + "/x.jpg", directory + "/y.jpg"]
      try Self.copy("Landscape_1.jpg", to: sources[0])
      try Self.copy("Portrait_2.jpg", to: sources[1])
      let thumbnails = sources.map { $0 + ".thumb-64.jpg" }
      #expect(try runImgfetch(sources + ["--thumbnail", "64"]).status == 0)
      // What the shell's glob gives now: every name, sorted.
      let glob = Self.tree(directory).map { directory + "/" + $0 }
      #expect(glob == [sources[0], thumbnails[0], sources[1], thumbnails[1]])
      let again = try runImgfetch(glob + ["--thumbnail", "64"])
      #expect(again.status == 0)
      #expect(again.stdoutText == Self.line(sources[0], thumbnails[0]) + Self.line(sources[1], thumbnails[1]))
      #expect(again.stderrText == "imgfetch: 2 thumbnails, 2 reused, 2 own thumbnails skipped\n")
      // --quiet: nothing at all.
      let quiet = try runImgfetch(glob + ["--thumbnail", "64", "--quiet"])
      #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty)
      // --json: one object per input, the thumbnails' saying they were skipped and nothing else.
      let json = try runImgfetch(glob + ["--thumbnail", "64", "--json"])
      let objects = try Self.objects(json.stdoutText)
      #expect(objects.map { $0["source"] as? String } == glob)
      #expect(objects.map { $0["reused"] as? Bool } == [true, nil, true, nil])
      for index in [1, 3] {
        #expect(Set(objects[index].keys) == ["source", "skipped"])
        #expect(objects[index]["skipped"] as? String == "it is a thumbnail made by imgfetch")
      }
      #expect(json.stderrText == "imgfetch: 2 thumbnails, 2 reused, 2 own thumbnails skipped\n")
      // One thumbnail alone: skipped, said once.
      let alone = try runImgfetch([thumbnails[0], "--thumbnail", "64"])
      #expect(alone.status == 0 && alone.stdout.isEmpty)
      #expect(alone.stderrText == "imgfetch: 0 thumbnails, 0 reused, 1 own thumbnail skipped\n")
      #expect(Self.tree(directory).count == 4, "no thumbnail of a thumbnail")
    }
  }

  /// A failure among them: the failure's line, and the summary counts the items, not the skipped
  /// thumbnails, which neither count as items for the exit code.
  @Test func skippedThumbnailsAreNotItemsOfTheExitCode() throws {
    try Self.withTemporaryDirectory { directory in
      try Self.copy("Landscape_1.jpg", to: directory + "/x.jpg")
      #expect(try runImgfetch([directory + "/x.jpg", "--thumbnail", "64"]).status == 0)
      try Self.copy("badcrc.png", to: directory + "/z.png")
      let some = try runImgfetch([directory, "--thumbnail", "64"])
      #expect(some.status == 2)
      #expect(some.stdoutText == Self.line(directory + "/x.jpg", directory + "/x.jpg.thumb-64.jpg"))
      #expect(
        some.stderrText
          == "imgfetch: \(directory)/z.png: corrupt PNG: IDAT: CRC error\n"
          + "imgfetch: 1 of 2 items failed, 1 own thumbnail skipped\n")
      // Every item failed the same way: its exit code, whatever the thumbnails met.
      try FileManager.default.removeItem(atPath: directory + "/x.jpg")
      let all = try runImgfetch([directory, "--thumbnail", "64"])
      #expect(all.status == 4, "\(all.stderrText)")
      // ("1 of 1 items" or, with the plural rule of the contract branch, "1 of 1 item").
      let lines = all.stderrText.split(separator: "\n")
      #expect(lines.count == 2 && lines.last?.hasPrefix("imgfetch: 1 of 1 item") == true)
      #expect(lines.last?.hasSuffix(" failed, 1 own thumbnail skipped") == true)
    }
  }

  @Test func theOutputFolderMirrorsTheTreeAndTwoSourcesNeverCollide() throws {
    try Self.withTemporaryDirectory { directory in
      let photos = directory + "/photos"
      try Self.copy("Landscape_1.jpg", to: photos + "/a.jpg")
      try Self.copy("Portrait_2.jpg", to: photos + "/a.jpeg")
      try Self.copy("basn6a08.png", to: photos + "/a.png")
      try Self.copy("Portrait_4.jpg", to: photos + "/2024/trip/a.jpg")
      let before = Self.tree(photos)
      let out = directory + "/out/thumbs"  // its parent is missing too
      let first = try runImgfetch([photos, "-r", "--thumbnail", "64", "--output-dir", out])
      #expect(first.status == 0, "\(first.stderrText)")
      let expected = [
        (photos + "/2024/trip/a.jpg", out + "/2024/trip/a.jpg.thumb-64.jpg", [43, 64]),
        (photos + "/a.jpeg", out + "/a.jpeg.thumb-64.jpg", [43, 64]),
        (photos + "/a.jpg", out + "/a.jpg.thumb-64.jpg", [64, 43]),
        (photos + "/a.png", out + "/a.png.thumb-64.png", [32, 32]),
      ]
      #expect(first.stdoutText == expected.map { Self.line($0.0, $0.1) }.joined())
      #expect(first.stderrText.isEmpty)
      for (_, thumbnail, size) in expected { #expect(try Self.size(of: thumbnail) == size, "\(thumbnail)") }
      #expect(
        Self.tree(out) == [
          "2024", "2024/trip", "2024/trip/a.jpg.thumb-64.jpg", "a.jpeg.thumb-64.jpg", "a.jpg.thumb-64.jpg",
          "a.png.thumb-64.png",
        ])
      #expect(Self.tree(photos) == before, "nothing written next to the originals")
      for folder in [directory + "/out", out, out + "/2024", out + "/2024/trip"] {
        let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        #expect(mode == 0o755, "\(folder)")
      }
      // Again: every thumbnail reused from the output folder (its stamp), the same lines, nothing else.
      let bytes = try expected.map { try Data(contentsOf: URL(fileURLWithPath: $0.1)) }
      let second = try runImgfetch([photos, "-r", "--thumbnail", "64", "--output-dir", out, "--json"])
      #expect(second.status == 0 && second.stderr.isEmpty)
      let objects = try Self.objects(second.stdoutText)
      #expect(objects.map { $0["thumbnailPath"] as? String } == expected.map(\.1))
      #expect(objects.allSatisfy { $0["reused"] as? Bool == true })
      #expect(try expected.map { try Data(contentsOf: URL(fileURLWithPath: $0.1)) } == bytes)
      // A changed source is rebuilt in its place.
      try FileManager.default.removeItem(atPath: photos + "/a.jpg")
      try Self.copy("Portrait_6.jpg", to: photos + "/a.jpg")
      let third = try runImgfetch([photos + "/a.jpg", "--thumbnail", "64", "--output-dir", out, "--json"])
      let rebuilt = try #require(try Self.objects(third.stdoutText).first)
      #expect(rebuilt["reused"] as? Bool == false)
      // A file operand's thumbnail lands directly under the output folder.
      #expect(rebuilt["thumbnailPath"] as? String == out + "/a.jpg.thumb-64.jpg")
    }
  }

  @Test func theSameNamesFromTwoFolderOperandsKeepTheirOwnThumbnails() throws {
    try Self.withTemporaryDirectory { directory in
      try Self.copy("Landscape_1.jpg", to: directory + "/x/photos/a.jpg")
      try Self.copy("Portrait_2.jpg", to: directory + "/y/photos/a.jpg")
      let out = directory + "/out"
      let run = try runImgfetch([
        directory + "/x/photos", directory + "/y/photos", "--thumbnail", "64", "--output-dir", out, "--jobs", "2",
      ])
      #expect(run.status == 0, "\(run.stderrText)")
      // Mirrored below the operands' common folder, so the two a.jpg stay apart.
      #expect(
        run.stdoutText
          == Self.line(directory + "/x/photos/a.jpg", out + "/x/photos/a.jpg.thumb-64.jpg")
          + Self.line(directory + "/y/photos/a.jpg", out + "/y/photos/a.jpg.thumb-64.jpg"))
      #expect(try Self.size(of: out + "/x/photos/a.jpg.thumb-64.jpg") == [64, 43])
      #expect(try Self.size(of: out + "/y/photos/a.jpg.thumb-64.jpg") == [43, 64])
    }
  }

  @Test func infoAndVerifyWalkFoldersAndDecodeTakesOneFile() throws {
    try Self.withTemporaryDirectory { directory in
      let photos = try Self.makePhotos(in: directory)
      let info = try runImgfetch(["info", photos])
      #expect(info.status == 0 && info.stderr.isEmpty)
      #expect(
        try Self.objects(info.stdoutText).map { $0["file"] as? String }
          == [photos + "/a.jpg", photos + "/b.png", photos + "/noext"])
      let verify = try runImgfetch(["verify", "-r", photos])
      #expect(verify.status == 0)
      #expect(
        verify.stdoutText
          == ["2024/c.jpg", "2024/link.jpg", "a.jpg", "b.png", "noext"].map { "\(photos)/\($0): OK\n" }.joined())
      let decode = try runImgfetch(["decode", photos, "-o", directory + "/x.raw"])
      #expect(decode.status == 5)
      #expect(decode.stderrText == "imgfetch: \(photos): cannot read file: a directory, not a regular file\n")
      #expect(try runImgfetch(["decode", "-r", photos + "/a.jpg", "-o", directory + "/x.raw"]).status == 1)
      let empty = directory + "/empty"
      try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
      let none = try runImgfetch([empty, "--thumbnail", "64"])
      #expect(none.status == 0 && none.stdout.isEmpty)
      #expect(none.stderrText == "imgfetch: \(empty): no PNG, JPEG, WebP, GIF, HEIC or AVIF files at its top level (-r walks subfolders)\n")
    }
  }

  /// A folder the walk cannot list is one failure (exit 5 alone, 2 among results); the walk goes on.
  @Test func anUnreadableFolderIsAFailureOfItsOwn() throws {
    try Self.withTemporaryDirectory { directory in
      let photos = directory + "/photos"
      try Self.copy("Landscape_1.jpg", to: photos + "/a.jpg")
      try Self.copy("Landscape_1.jpg", to: photos + "/locked/b.jpg")
      chmod(photos + "/locked", 0o000)
      defer { chmod(photos + "/locked", 0o755) }
      // As root (CI containers), without capabilities: root's CAP_DAC_OVERRIDE would list it anyway.
      let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
      func run(_ arguments: [String]) throws -> ProcessResult {
        getuid() == 0
          ? try runProcess("/usr/bin/setpriv", ["--inh-caps=-all", "--bounding-set=-all", imgfetch] + arguments)
          : try runImgfetch(arguments)
      }
      let result = try run([photos, "-r", "--thumbnail", "64"])
      #expect(result.status == 2)
      #expect(result.stdoutText == Self.line(photos + "/a.jpg", photos + "/a.jpg.thumb-64.jpg"))
      #expect(
        result.stderrText
          == "imgfetch: \(photos)/locked: cannot list: Permission denied\nimgfetch: 1 of 2 items failed\n")
      // verify reports it as it reports a file it cannot read (on standard output today; the reason
      // line is what counts).
      let verify = try run(["verify", "-r", photos + "/locked"])
      #expect(verify.status == 5)
      #expect((verify.stdoutText + verify.stderrText).contains("\(photos)/locked: cannot list: Permission denied\n"))
    }
  }

  @Test func anOutputFolderThatCannotBeMadeIsOneLineAndExitFive() throws {
    try Self.withTemporaryDirectory { directory in
      try Self.copy("Landscape_1.jpg", to: directory + "/a.jpg")
      let blocker = directory + "/a-file"
      try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
      let run = try runImgfetch([directory + "/a.jpg", "--thumbnail", "64", "--output-dir", blocker + "/thumbs"])
      #expect(run.status == 5 && run.stdout.isEmpty)
      #expect(run.stderrText == "imgfetch: cannot use the output folder: \(blocker): cannot create: Not a directory\n")
      #expect(Self.tree(directory) == ["a-file", "a.jpg"])
      // A subfolder of the mirrored tree that cannot be made fails its items alone (exit 5), and
      // the others are written.
      try Self.copy("Landscape_1.jpg", to: directory + "/photos/2024/b.jpg")
      try Self.copy("Landscape_1.jpg", to: directory + "/photos/c.jpg")
      let out = directory + "/out"
      try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
      try Data("x".utf8).write(to: URL(fileURLWithPath: out + "/2024"))
      let tree = try runImgfetch([directory + "/photos", "-r", "--thumbnail", "64", "--output-dir", out])
      #expect(tree.status == 2)
      #expect(tree.stdoutText == Self.line(directory + "/photos/c.jpg", out + "/c.jpg.thumb-64.jpg"))
      #expect(
        tree.stderrText
          == "imgfetch: \(directory)/photos/2024/b.jpg: \(out)/2024: cannot write: Not a directory\n"
          + "imgfetch: 1 of 2 items failed\n")
    }
  }

  @Test(arguments: [
    ["x.jpg", "--output-dir", "out"], ["x.jpg", "--thumbnail", "64", "--output-dir", ""],
    ["decode", "x.jpg", "-r"], ["cache", "stats", "-r"],
  ])
  func foldersOptionsOutsideTheirPlaceAreUsageErrors(arguments: [String]) throws {
    let run = try runImgfetch(arguments)
    #expect(run.status == 1)
    #expect(run.stderrText.hasPrefix("imgfetch: ") && run.stderrText.split(separator: "\n").count == 1)
    #expect(run.stdout.isEmpty)
  }

  @Test func helpNamesTheFolderOptions() throws {
    let help = try runImgfetch(["--help"])
    #expect(help.status == 0)
    for text in ["-r, --recursive", "--output-dir DIR", "A folder SOURCE", "own thumbnails"] {
      #expect(help.stdoutText.contains(text), "\(text)")
    }
  }

  /// Downloads go under the output folder too, mirrored from the cache directory: next to a local
  /// folder's thumbnails (the common folder of both is mirrored), never over them.
  @Test func downloadsAreMirroredFromTheCacheDirectory() async throws {
    let name = "0123456789abcdef0123456789abcdef_a.jpg"
    let fixture = try await ParseFixture(
      files: [name: "Portrait_2.jpg"],
      seed: ["classes": ["Photo": [ParseFixture.photo("aaaaaaaaaa", ParseFixture.file(name))]]])
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let cache = directory.appendingPathComponent("cache")
    let photos = directory.path + "/photos"
    let out = directory.path + "/out"
    try Self.copy("Landscape_1.jpg", to: photos + "/" + name)  // the same name as the download's
    let arguments = FetchCommandTests.arguments(
      fixture, cache: cache,
      ["Photo/aaaaaaaaaa", "--column", "MainImage", photos, "--thumbnail", "64", "--output-dir", out, "--json"])
    let run = try runImgfetch(arguments)
    #expect(run.status == 0, "\(run.stderrText)")
    let objects = try Self.objects(run.stdoutText)
    // A run with downloads prints each item as it finishes: matched by source.
    let paths = Dictionary(
      uniqueKeysWithValues: objects.map { ($0["source"] as! String, $0["thumbnailPath"] as? String) })
    #expect(
      paths == [
        "Photo/aaaaaaaaaa": out + "/cache/\(name).thumb-64.jpg",
        photos + "/\(name)": out + "/photos/\(name).thumb-64.jpg",
      ])
    #expect(try Self.size(of: out + "/cache/\(name).thumb-64.jpg") == [43, 64])
    #expect(try Self.size(of: out + "/photos/\(name).thumb-64.jpg") == [64, 43])
    #expect(!Self.tree(cache.path).contains { $0.contains(".thumb-") }, "nothing next to the cached original")
    // Only downloads: the cache directory is the root, the thumbnail lands directly under DIR.
    let alone = try runImgfetch(
      FetchCommandTests.arguments(
        fixture, cache: cache,
        [fixture.fileURL(name).absoluteString, "--thumbnail", "64", "--output-dir", out + "2", "--json"]))
    #expect(alone.status == 0, "\(alone.stderrText)")
    let object = try #require(try Self.objects(alone.stdoutText).first)
    let entry = try #require((object["cachePath"] as? String).map { ($0 as NSString).lastPathComponent })
    #expect(object["thumbnailPath"] as? String == out + "2/\(entry).thumb-64.jpg")
    #expect(FileManager.default.fileExists(atPath: out + "2/\(entry).thumb-64.jpg"))
  }
}
