import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// The `imgfetch --thumbnail` command, run as a user runs it (the built binary, in a process).
@Suite struct ThumbnailCommandTests {
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

  @Test func printsEachThumbnailPathAndWritesTheFile() throws {
    try TestImages.withTemporaryDirectory { directory in
      let sources = try copy(["Landscape_1.jpg", "basn6a08.png"], to: directory)
      let run = try runImgfetch(["--thumbnail", "256"] + sources)
      #expect(run.status == 0)
      // The name carries the size asked for; the 32x32 PNG is not enlarged.
      #expect(run.stdoutText == "\(directory)/Landscape_1.jpg.thumb-256.jpg\n\(directory)/basn6a08.png.thumb-256.png\n")
      #expect(FileManager.default.fileExists(atPath: "\(directory)/Landscape_1.jpg.thumb-256.jpg"))
      #expect(FileManager.default.fileExists(atPath: "\(directory)/basn6a08.png.thumb-256.png"))
      #expect(run.stderrText.isEmpty)
    }
  }

  @Test func jsonLinesCarryTheResultAndSayWhenAThumbnailIsReused() throws {
    try TestImages.withTemporaryDirectory { directory in
      let sources = try copy(["Portrait_6.jpg"], to: directory)
      let first = try runImgfetch(["--thumbnail", "320x200", "--fit", "cover", "--json"] + sources)
      #expect(first.status == 0)
      let objects = try jsonObjects(first.stdoutText)
      #expect(objects.count == 1)
      let object = objects[0]
      #expect(object["source"] as? String == sources[0])
      #expect(object["thumbnailPath"] as? String == "\(directory)/Portrait_6.jpg.thumb-320x200-cover.jpg")
      #expect(object["width"] as? Int == 320 && object["height"] as? Int == 200)
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
    try TestImages.withTemporaryDirectory { directory in
      let sources = try copy(["Portrait_6.jpg"], to: directory)
      let run = try runImgfetch(["--thumbnail", "100", "--format", "png", "--no-rotate", "--json"] + sources)
      #expect(run.status == 0)
      let object = try jsonObjects(run.stdoutText)[0]
      #expect(object["thumbnailPath"] as? String == "\(directory)/Portrait_6.jpg.thumb-100.png")
      #expect(object["format"] as? String == "png")
      // Stored 1800x1200: without rotation the thumbnail stays landscape.
      #expect(object["width"] as? Int == 100 && object["height"] as? Int == 67)
    }
  }

  /// `photo.jpg` (landscape) and `photo.png` (portrait, opaque, so also a JPEG thumbnail) used to
  /// share `photo.thumb-64.jpg`: each run rebuilt the other's, and the JSON gave one's size for a
  /// file holding the other's thumbnail.
  @Test(arguments: ["1", "2"])
  func twoSourcesWithOneStemKeepTheirOwnThumbnails(jobs: String) throws {
    try TestImages.withTemporaryDirectory { directory in
      let jpeg = "\(directory)/photo.jpg"
      let png = "\(directory)/photo.png"
      try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: jpeg)
      try TestImages.write(TestImages.pattern(width: 60, height: 90), as: .png(), to: png)
      let arguments = ["--thumbnail", "64", "--jobs", jobs, "--json", jpeg, png]
      let first = try runImgfetch(arguments)
      #expect(first.status == 0, "\(first.stderrText)")
      let objects = try jsonObjects(first.stdoutText)
      #expect(objects.map { $0["thumbnailPath"] as? String } == ["\(jpeg).thumb-64.jpg", "\(png).thumb-64.jpg"])
      #expect(objects.map { $0["reused"] as? Bool } == [false, false])
      // Each file holds its own source's thumbnail, at the size the JSON reports.
      for (object, size) in zip(objects, [(64, 43), (43, 64)]) {
        let path = try #require(object["thumbnailPath"] as? String)
        let header = try ImageDecoder.probe(contentsOf: path)
        #expect((header.width, header.height) == size)
        #expect((object["width"] as? Int, object["height"] as? Int) == (size.0, size.1))
      }
      // The second run reuses both and changes neither.
      let before = try [jpeg, png].map { try Data(contentsOf: URL(fileURLWithPath: "\($0).thumb-64.jpg")) }
      let second = try runImgfetch(arguments)
      #expect(second.status == 0)
      #expect(try jsonObjects(second.stdoutText).map { $0["reused"] as? Bool } == [true, true])
      let after = try [jpeg, png].map { try Data(contentsOf: URL(fileURLWithPath: "\($0).thumb-64.jpg")) }
      #expect(before == after)
      #expect(
        TestImages.files(in: directory) == [
          "photo.jpg", "photo.jpg.thumb-64.jpg", "photo.png", "photo.png.thumb-64.jpg",
        ])
    }
  }

  @Test func anInvalidImageExitsWithFourAndSaysWhy() throws {
    try TestImages.withTemporaryDirectory { directory in
      let sources = try copy(["truncated_jpeg.jpg"], to: directory)
      let run = try runImgfetch(["--thumbnail", "64"] + sources)
      #expect(run.status == 4)
      #expect(run.stdoutText.isEmpty)
      #expect(run.stderrText == "imgfetch: \(sources[0]): truncated JPEG: Premature end of JPEG file\n")
      #expect(TestImages.files(in: directory) == ["truncated_jpeg.jpg"])
    }
  }

  @Test func aBatchWithSomeFailuresExitsWithTwoAndKeepsTheOrder() throws {
    try TestImages.withTemporaryDirectory { directory in
      let sources = try copy(["Landscape_3.jpg", "badcrc.png", "Landscape_5.jpg", "Portrait_8.jpg"], to: directory)
      let run = try runImgfetch(["--thumbnail", "64", "--jobs", "2", "--json"] + sources)
      #expect(run.status == 2)
      let objects = try jsonObjects(run.stdoutText)
      #expect(objects.map { $0["source"] as? String } == sources)
      #expect(objects[1]["error"] as? String == "\(sources[1]): corrupt PNG: IDAT: CRC error")
      #expect(objects.filter { $0["thumbnailPath"] != nil }.count == 3)
      #expect(run.stderrText.contains("badcrc.png: corrupt PNG"))
    }
  }

  @Test func thumbnailsAreNotThumbnailedAgain() throws {
    try TestImages.withTemporaryDirectory { directory in
      let sources = try copy(["Landscape_1.jpg"], to: directory)
      #expect(try runImgfetch(["--thumbnail", "64"] + sources).status == 0)
      let all = TestImages.files(in: directory).map { directory + "/" + $0 }
      let again = try runImgfetch(["--thumbnail", "64"] + all)
      #expect(again.status == 0)
      #expect(again.stdoutText == "\(directory)/Landscape_1.jpg.thumb-64.jpg\n")
      #expect(again.stderrText.contains("Landscape_1.jpg.thumb-64.jpg: skipped: it is a thumbnail made by imgfetch"))
      #expect(TestImages.files(in: directory) == ["Landscape_1.jpg", "Landscape_1.jpg.thumb-64.jpg"])
    }
  }

  @Test(arguments: [
    ["--thumbnail", "0", "x.jpg"], ["--thumbnail", "abc", "x.jpg"], ["--thumbnail", "256"],
    ["--thumbnail", "256", "--fit", "fill", "x.jpg"], ["--thumbnail", "256", "--quality", "101", "x.jpg"],
    ["--thumbnail", "256", "--format", "gif", "x.jpg"], ["--thumbnail", "256", "--jobs", "0", "x.jpg"],
    ["--thumbnail", "256", "--bogus", "x.jpg"],
  ])
  func usageErrorsExitWithOne(arguments: [String]) throws {
    let run = try runImgfetch(arguments)
    #expect(run.status == 1)
    #expect(run.stderrText.hasPrefix("imgfetch: "))
    #expect(run.stdoutText.isEmpty)
  }

  @Test func anInterruptedBatchFinishesWhatItStartedAndLeavesNoPartialFile() throws {
    try TestImages.withTemporaryDirectory { directory in
      var sources: [String] = []
      for index in 0..<30 {
        let path = "\(directory)/photo\(index).jpg"
        try FileManager.default.copyItem(atPath: Fixtures.image("Landscape_1.jpg"), toPath: path)
        sources.append(path)
      }
      let process = Process()
      process.executableURL = Fixtures.productsDirectory.appendingPathComponent("imgfetch")
      process.arguments = ["--thumbnail", "200", "--jobs", "1"] + sources
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      // Wait for the first thumbnail, then press Ctrl-C.
      let first = "\(directory)/photo0.jpg.thumb-200.jpg"
      let deadline = Date().addingTimeInterval(60)
      while !FileManager.default.fileExists(atPath: first) && Date() < deadline { usleep(10_000) }
      process.interrupt()
      process.waitUntilExit()
      #expect(process.terminationStatus == 130)
      let files = TestImages.files(in: directory)
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
    #expect(run.stdoutText.contains("photo.jpg.thumb-320x200-cover.jpg"))
  }
}
