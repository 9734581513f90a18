import FixtureSupport
import Foundation
import ImageCodecs
import Testing
import Thumbnails

/// `imgfetch --thumbnail` on local files, run as a user runs it (the built binary, in a process).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct ThumbnailCommandTests {
  static func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let url = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url.path)
  }

  static func files(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
  }

  static func thumbnailPath(
    _ source: String, _ size: ThumbnailSize, fit: ThumbnailFit = .inside, format: ImageFormat = .jpeg
  ) -> String {
    ThumbnailNaming.path(forSource: source, size: size, fit: fit, format: format)
  }

  func copy(_ fixtures: [String], to directory: String) throws -> [String] {
    try fixtures.map { name in
      let path = directory + "/" + name
      try FileManager.default.copyItem(atPath: Fixtures.image(name), toPath: path)
      return path
    }
  }

  func jsonObjects(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map {
      try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
  }

  @Test func printsEachFileAndItsThumbnailAndWritesTheThumbnail() throws {
    try Self.withTemporaryDirectory { directory in
      let sources = try copy(["Landscape_1.jpg", "basn6a08.png"], to: directory)
      let run = try runImgfetch(["--thumbnail", "256"] + sources)
      #expect(run.status == 0)
      // The name carries the size asked for; the 32x32 PNG is not enlarged.
      let thumbnails = [
        Self.thumbnailPath(sources[0], .longestSide(256)),
        Self.thumbnailPath(sources[1], .longestSide(256), format: .png),
      ]
      #expect(run.stdoutText == "\(sources[0])\t\(thumbnails[0])\n\(sources[1])\t\(thumbnails[1])\n")
      #expect(thumbnails.allSatisfy { FileManager.default.fileExists(atPath: $0) })
      #expect(run.stderrText.isEmpty)
    }
  }

  /// `--thumbnail 120x` and `x90` (issue 32): a width or a height alone, as vipsthumbnail takes them;
  /// the cache's classifier knows the names too.
  @Test func aWidthOrAHeightAloneIsAThumbnailSize() throws {
    try Self.withTemporaryDirectory { directory in
      let source = try copy(["basn2c08.png"], to: directory)[0]  // 32x32
      for (size, expected, label) in [("20x", (20, 20), "20x"), ("x10", (10, 10), "x10")] {
        let run = try runImgfetch(["--thumbnail", size, "--json", source])
        #expect(run.status == 0, "\(run.stderrText)")
        let object = try #require(try jsonObjects(run.stdoutText).first)
        let path = try #require(object["thumbnailPath"] as? String)
        #expect(path == source + ".thumb-\(label).jpg")  // an opaque PNG: a JPEG thumbnail
        let info = try runImgfetch(["info", path])
        let header = try #require(try jsonObjects(info.stdoutText).first)
        #expect(header["width"] as? Int == expected.0 && header["height"] as? Int == expected.1, "\(header)")
      }
    }
  }

  /// `--force` (issue 32): an up-to-date thumbnail is made again (a new file renamed over it).
  @Test func forceRemakesAnUpToDateThumbnail() throws {
    try Self.withTemporaryDirectory { directory in
      let source = try copy(["basn2c08.png"], to: directory)[0]
      let arguments = ["--thumbnail", "16", "--json", source]
      func run(_ more: [String] = []) throws -> (reused: Bool?, inode: Int?) {
        let result = try runImgfetch(arguments + more)
        #expect(result.status == 0, "\(result.stderrText)")
        let object = try #require(try jsonObjects(result.stdoutText).first)
        let path = try #require(object["thumbnailPath"] as? String)
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        return (object["reused"] as? Bool, inode)
      }
      let made = try run()
      let again = try run()
      let forced = try run(["--force"])
      #expect(made.reused == false && again.reused == true && forced.reused == false)
      #expect(again.inode == made.inode && forced.inode != made.inode, "a new file")
    }
  }

  @Test func jsonLinesCarryTheOriginalAndTheThumbnailAndSayWhenItIsReused() throws {
    try Self.withTemporaryDirectory { directory in
      let sources = try copy(["Portrait_6.jpg"], to: directory)
      let first = try runImgfetch(["--thumbnail", "320x200", "--fit", "cover", "--json"] + sources)
      #expect(first.status == 0)
      let objects = try jsonObjects(first.stdoutText)
      #expect(objects.count == 1)
      let object = objects[0]
      #expect(object["source"] as? String == sources[0])
      #expect(
        object["thumbnailPath"] as? String
          == Self.thumbnailPath(sources[0], .box(width: 320, height: 200), fit: .cover))
      // The original's size as seen (orientation 6 turns the stored 1800x1200 upright) and as stored.
      #expect(object["width"] as? Int == 1200 && object["height"] as? Int == 1800)
      #expect(object["storedWidth"] as? Int == 1800 && object["storedHeight"] as? Int == 1200)
      #expect(object["thumbnailWidth"] as? Int == 320 && object["thumbnailHeight"] as? Int == 200)
      #expect(object["format"] as? String == "jpeg")
      #expect(object["reused"] as? Bool == false)
      let second = try runImgfetch(["--thumbnail", "320x200", "--fit", "cover", "--json"] + sources)
      #expect(try jsonObjects(second.stdoutText).first?["reused"] as? Bool == true)
      // Other settings rebuild it.
      let third = try runImgfetch(["--thumbnail", "320x200", "--fit", "cover", "--quality", "50", "--json"] + sources)
      #expect(try jsonObjects(third.stdoutText).first?["reused"] as? Bool == false)
    }
  }

  @Test func formatAndRotationCanBeChosen() throws {
    try Self.withTemporaryDirectory { directory in
      let sources = try copy(["Portrait_6.jpg"], to: directory)
      let run = try runImgfetch(["--thumbnail", "100", "--format", "png", "--no-rotate", "--json"] + sources)
      #expect(run.status == 0)
      let object = try jsonObjects(run.stdoutText)[0]
      #expect(object["thumbnailPath"] as? String == Self.thumbnailPath(sources[0], .longestSide(100), format: .png))
      // Stored 1800x1200: without rotation the thumbnail stays landscape.
      #expect(object["thumbnailWidth"] as? Int == 100 && object["thumbnailHeight"] as? Int == 67)
    }
  }

  /// `photo.jpg` (landscape) and `photo.png` (portrait, opaque, so also a JPEG thumbnail) used to
  /// share one thumbnail file: each run rebuilt the other's, and the JSON gave one's size for a file
  /// holding the other's thumbnail (moved here from ThumbnailsTests with the command's tests).
  @Test(arguments: ["1", "2"])
  func twoSourcesWithOneStemKeepTheirOwnThumbnails(jobs: String) throws {
    try Self.withTemporaryDirectory { directory in
      let jpeg = "\(directory)/photo.jpg"
      let png = "\(directory)/photo.png"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: jpeg)
      let bytes = (0..<(60 * 90 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
      try ImageEncoder.write(Image(width: 60, height: 90, pixelFormat: .rgb8, bytes: bytes)!, as: .png(), to: png)
      let arguments = ["--thumbnail", "64", "--jobs", jobs, "--json", jpeg, png]
      let first = try runImgfetch(arguments)
      #expect(first.status == 0, "\(first.stderrText)")
      let objects = try jsonObjects(first.stdoutText)
      let paths = [Self.thumbnailPath(jpeg, .longestSide(64)), Self.thumbnailPath(png, .longestSide(64))]
      #expect(Set(paths).count == 2)
      #expect(objects.map { $0["thumbnailPath"] as? String } == paths)
      #expect(objects.map { $0["reused"] as? Bool } == [false, false])
      // Each file holds its own source's thumbnail, at the size the JSON reports.
      for (object, size) in zip(objects, [(64, 43), (43, 64)]) {
        let path = try #require(object["thumbnailPath"] as? String)
        let header = try ImageDecoder.probe(contentsOf: path)
        #expect((header.width, header.height) == size)
        #expect((object["thumbnailWidth"] as? Int, object["thumbnailHeight"] as? Int) == (size.0, size.1))
      }
      // The second run reuses both and changes neither.
      let before = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
      let second = try runImgfetch(arguments)
      #expect(second.status == 0)
      #expect(try jsonObjects(second.stdoutText).map { $0["reused"] as? Bool } == [true, true])
      #expect(try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
      #expect(Self.files(in: directory).count == 4)
    }
  }

  @Test func anInvalidImageExitsWithFourAndSaysWhy() throws {
    try Self.withTemporaryDirectory { directory in
      let sources = try copy(["truncated_jpeg.jpg"], to: directory)
      let run = try runImgfetch(["--thumbnail", "64"] + sources)
      #expect(run.status == 4)
      #expect(run.stdoutText.isEmpty)
      #expect(run.stderrText == "imgfetch: \(sources[0]): truncated JPEG: Premature end of JPEG file\n")
      #expect(Self.files(in: directory) == ["truncated_jpeg.jpg"])
    }
  }

  @Test func aBatchWithSomeFailuresExitsWithTwoKeepsTheOrderAndCountsThem() throws {
    try Self.withTemporaryDirectory { directory in
      let sources = try copy(["Landscape_3.jpg", "badcrc.png", "Landscape_5.jpg", "Portrait_8.jpg"], to: directory)
      let run = try runImgfetch(["--thumbnail", "64", "--jobs", "2", "--json"] + sources)
      #expect(run.status == 2)
      let objects = try jsonObjects(run.stdoutText)
      #expect(objects.map { $0["source"] as? String } == sources)
      #expect(objects[1]["error"] as? String == "\(sources[1]): corrupt PNG: IDAT: CRC error")
      #expect(objects.filter { $0["thumbnailPath"] != nil }.count == 3)
      #expect(run.stderrText.contains("badcrc.png: corrupt PNG"))
      #expect(run.stderrText.hasSuffix("imgfetch: 1 of 4 items failed\n"))
    }
  }

  /// Named as a source (a glob matches it on a second run), one of imgfetch's own thumbnails is
  /// skipped without a line of its own, and counted once in the summary; `--json` says why.
  @Test func thumbnailsAreSkippedWithAReason() throws {
    try Self.withTemporaryDirectory { directory in
      let sources = try copy(["Landscape_1.jpg"], to: directory)
      #expect(try runImgfetch(["--thumbnail", "64"] + sources).status == 0)
      let thumbnail = Self.thumbnailPath(sources[0], .longestSide(64))
      let again = try runImgfetch(["--thumbnail", "64", sources[0], thumbnail])
      #expect(again.status == 0)
      #expect(again.stdoutText == "\(sources[0])\t\(thumbnail)\n")
      #expect(again.stderrText == "imgfetch: 1 thumbnail, 1 reused, 1 own thumbnail skipped\n")
      let json = try runImgfetch(["--thumbnail", "64", "--json", thumbnail])
      let object = try jsonObjects(json.stdoutText)
      #expect(object.count == 1 && object[0]["skipped"] as? String == "it is a thumbnail made by imgfetch")
      #expect(Self.files(in: directory).count == 2)
    }
  }

  @Test(arguments: [
    ["--thumbnail", "0", "x.jpg"], ["--thumbnail", "abc", "x.jpg"], ["--thumbnail", "256"],
    ["--thumbnail", "256", "--fit", "fill", "x.jpg"], ["--thumbnail", "256", "--quality", "101", "x.jpg"],
    ["--thumbnail", "256", "--format", "gif", "x.jpg"], ["--thumbnail", "256", "--jobs", "0", "x.jpg"],
    ["--thumbnail", "256", "--bogus", "x.jpg"], ["--fit", "cover", "x.jpg"],
  ])
  func usageErrorsExitWithOne(arguments: [String]) throws {
    let run = try runImgfetch(arguments)
    #expect(run.status == 1)
    #expect(run.stderrText.hasPrefix("imgfetch: "))
    #expect(run.stdoutText.isEmpty)
  }

  @Test func anInterruptedBatchFinishesWhatItStartedAndLeavesNoPartialFile() throws {
    try Self.withTemporaryDirectory { directory in
      var sources: [String] = []
      for index in 0..<30 {
        let path = "\(directory)/photo\(index).jpg"
        try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: path)
        sources.append(path)
      }
      let imgfetch = Fixtures.productsDirectory.appendingPathComponent("imgfetch").path
      let process = try ChildProcess.Running([imgfetch, "--thumbnail", "200", "--jobs", "1"] + sources)
      // Wait for the first thumbnail, then press Ctrl-C.
      let first = Self.thumbnailPath(sources[0], .longestSide(200))
      let deadline = Date().addingTimeInterval(60)
      while !FileManager.default.fileExists(atPath: first) && Date() < deadline { usleep(10_000) }
      process.send(SIGINT)
      #expect(process.waitUntilExit() == .exit(130))
      let files = Self.files(in: directory)
      let thumbnails = files.filter { $0.contains(".thumb-") }
      #expect(!thumbnails.isEmpty && thumbnails.count < sources.count)
      #expect(files.allSatisfy { !$0.hasPrefix(".") }, "no temporary file left: \(files)")
      for name in thumbnails {
        #expect(try ImageDecoder.decode(contentsOf: "\(directory)/\(name)").width == 200)
      }
    }
  }

  @Test func helpDescribesTheFileNames() throws {
    let run = try runImgfetch(["--thumbnail", "--help"])
    #expect(run.status == 0)
    #expect(run.stdoutText.contains(Self.thumbnailPath("photo.jpg", .box(width: 320, height: 200), fit: .cover)))
  }
}

/// `--help`'s Examples (issue 32): every example is a command line the commands accept as
/// written. Each runs (a dry run where it would write or download, in a scratch cache and home),
/// and none is a usage error.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct HelpExamplesTests {
  @Test func everyExampleIsAccepted() throws {
    let help = try runImgfetch(["--help"]).stdoutText
    let section = try #require(
      help.components(separatedBy: "\nExamples:\n").last?.components(separatedBy: "\n\n").first)
    let commands = section.split(separator: "\n").filter { $0.hasPrefix("  imgfetch ") }.map {
      $0.trimmingCharacters(in: .whitespaces).split(separator: " ").dropFirst().map(String.init)
    }
    #expect(commands.count >= 8)
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let environment = [
        "HOME": directory, "XDG_CACHE_HOME": directory + "/cache", "PARSE_SERVER_URL": "http://127.0.0.1:9/parse",
        "PARSE_APPLICATION_ID": "app", "PARSE_REST_API_KEY": "key",
      ]
      for arguments in commands {
        // decode, info and a dry run write nothing; the others are made dry runs.
        let safe = ["info", "decode", "cache"].contains(arguments[0]) || arguments.contains("--dry-run")
        let run = try runImgfetch(arguments + (safe ? [] : ["--dry-run"]), environment: environment)
        #expect(run.status != 1, "\(arguments): \(run.stderrText)")
        #expect(!run.stderrText.contains("see imgfetch --help"), "\(arguments): \(run.stderrText)")
      }
    }
  }
}
