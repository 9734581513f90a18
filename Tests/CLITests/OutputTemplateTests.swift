import FixtureSupport
import Foundation
import ImageCodecs
import Testing
import Thumbnails

/// `--thumbnail SIZE -o TEMPLATE` (issue 32): thumbnails named as vipsthumbnail's `-o tn_%s.jpg`,
/// run as a user runs it (the built binary, real files).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct OutputTemplateTests {
  func copy(_ fixtures: [(String, String)], to directory: String) throws -> [String] {
    try fixtures.map { fixture, name in
      let path = directory + "/" + name
      try FileManager.default.copyItem(atPath: Fixtures.image(fixture), toPath: path)
      return path
    }
  }

  func json(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
  }

  func formatOf(_ path: String) throws -> ImageFormat { try ImageDecoder.probe(contentsOf: path).format }

  /// `%s` is the name without its extension; the template's extension chooses the format (a PNG
  /// with alpha gets a JPEG for `.jpg`), and the thumbnail goes next to the source.
  @Test func theTemplateNamesTheThumbnailAndItsExtensionChoosesTheFormat() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let sources = try copy([("Landscape_1.jpg", "photo.jpg"), ("basn6a08.png", "logo.png")], to: directory)
      for (template, format) in [("tn_%s.jpg", ImageFormat.jpeg), ("tn_%s.webp", .webp), ("%s-small.PNG", .png)] {
        let run = try runImgfetch(["--thumbnail", "64", "-o", template] + sources)
        #expect(run.status == 0, "\(run.stderrText)")
        let names = ["photo", "logo"].map { directory + "/" + template.replacingOccurrences(of: "%s", with: $0) }
        #expect(run.stdoutText == "\(sources[0])\t\(names[0])\n\(sources[1])\t\(names[1])\n")
        for name in names { #expect(try formatOf(name) == format) }
      }
      // Today's names are not written, and `--output` is a long form of `-o`.
      #expect(!FileManager.default.fileExists(atPath: sources[0] + ".thumb-64.jpg"))
      let long = try runImgfetch(["--thumbnail", "64", "--output", "big_%s.jpeg", sources[0]])
      #expect(long.status == 0 && long.stdoutText == "\(sources[0])\t\(directory)/big_photo.jpeg\n")
    }
  }

  /// A second run reuses the thumbnail; a folder walked again skips the templated thumbnails as
  /// imgfetch's own instead of thumbnailing them (`tn_tn_photo.jpg`).
  @Test func aSecondRunReusesItAndAFolderWalkSkipsTheThumbnails() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      _ = try copy([("Landscape_1.jpg", "photo.jpg"), ("Portrait_6.jpg", "other.jpg")], to: directory)
      let arguments = ["--thumbnail", "64", "-o", "tn_%s.jpg", "--json", directory]
      let first = try runImgfetch(arguments)
      #expect(first.status == 0, "\(first.stderrText)")
      #expect(try json(first.stdoutText).map { $0["reused"] as? Bool } == [false, false])
      let second = try runImgfetch(arguments)
      #expect(second.status == 0, "\(second.stderrText)")
      let objects = try json(second.stdoutText)
      #expect(objects.filter { $0["reused"] as? Bool == true }.count == 2)
      #expect(objects.filter { $0["skipped"] != nil }.count == 2)
      #expect(
        ThumbnailCommandTests.files(in: directory) == ["other.jpg", "photo.jpg", "tn_other.jpg", "tn_photo.jpg"])
    }
  }

  /// With `--output-dir` the template is read from the mirrored folder; a template's subfolder is
  /// created.
  @Test func withAnOutputFolderTheTemplateIsRelativeToIt() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      try FileManager.default.createDirectory(atPath: directory + "/in/trip", withIntermediateDirectories: true)
      _ = try copy([("Landscape_1.jpg", "in/trip/a.jpg"), ("Portrait_6.jpg", "in/b.jpg")], to: directory)
      let run = try runImgfetch([
        "--thumbnail", "64", "-r", "-o", "small/%s.webp", "--output-dir", directory + "/out", directory + "/in",
      ])
      #expect(run.status == 0, "\(run.stderrText)")
      for path in ["out/small/b.webp", "out/trip/small/a.webp"] {
        #expect(try formatOf(directory + "/" + path) == .webp, "\(path)")
      }
      let absolute = try runImgfetch([
        "--thumbnail", "64", "-o", "/tmp/%s.jpg", "--output-dir", directory + "/out", directory + "/in/b.jpg",
      ])
      #expect(absolute.status == 1 && absolute.stderrText.contains("must be relative"), "\(absolute.stderrText)")
    }
  }

  /// Two sources that would share a name, or a source that would be its own thumbnail, stop the
  /// run before any work: usage error (exit 1), both named, nothing written or changed.
  @Test func twoSourcesOnOneNameAreRefusedBeforeAnyWork() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let sources = try copy([("Landscape_1.jpg", "a.jpg"), ("basn6a08.png", "a.png")], to: directory)
      let before = try sources.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
      let shared = try runImgfetch(["--thumbnail", "64", "-o", "tn_%s.jpg"] + sources)
      #expect(shared.status == 1)
      #expect(
        shared.stderrText == "imgfetch: --output tn_%s.jpg gives \(sources[0]) and \(sources[1]) one thumbnail,"
          + " \(directory)/tn_a.jpg (see imgfetch --help)\n")
      let fixed = try runImgfetch(["--thumbnail", "64", "-o", "x.jpg"] + sources)
      #expect(fixed.status == 1 && fixed.stderrText.contains("gives \(sources[0]) and \(sources[1])"))
      for extra in [[], ["--overwrite"]] {
        let itself = try runImgfetch(["--thumbnail", "64", "-o", "%s.jpg", sources[0]] + extra)
        #expect(itself.status == 1)
        #expect(itself.stderrText.contains("would write \(sources[0])'s thumbnail over \(sources[0]) itself"))
      }
      #expect(ThumbnailCommandTests.files(in: directory) == ["a.jpg", "a.png"])
      #expect(try sources.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
    }
  }

  /// A file imgfetch did not make at the templated name is left as it is (exit 5) unless
  /// `--overwrite`, as at today's names.
  @Test func someonesFileAtTheTemplatedNameIsLeftAsItIs() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let source = try copy([("Landscape_1.jpg", "photo.jpg")], to: directory)[0]
      let notes = directory + "/tn_photo.jpg"
      try Data("my notes".utf8).write(to: URL(fileURLWithPath: notes))
      let refused = try runImgfetch(["--thumbnail", "64", "-o", "tn_%s.jpg", source])
      #expect(refused.status == 5)
      #expect(refused.stderrText.contains("\(notes) holds a file imgfetch did not make"), "\(refused.stderrText)")
      #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes")
      let replaced = try runImgfetch(["--thumbnail", "64", "-o", "tn_%s.jpg", "--overwrite", source])
      #expect(replaced.status == 0, "\(replaced.stderrText)")
      #expect(try formatOf(notes) == .jpeg)
    }
  }

  /// Across runs (or downloads, whose names are not known before the walk), a templated name held
  /// by another source's thumbnail is left as it is (exit 5), so two sources never take turns
  /// replacing each other's; `--overwrite` replaces it.
  @Test func anotherSourcesThumbnailAtTheNameIsLeftAsItIs() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let sources = try copy([("Landscape_1.jpg", "a.jpg"), ("Portrait_6.jpg", "a.png")], to: directory)
      let target = directory + "/tn_a.jpg"
      #expect(try runImgfetch(["--thumbnail", "64", "-o", "tn_%s.jpg", sources[0]]).status == 0)
      let first = try Data(contentsOf: URL(fileURLWithPath: target))
      let refused = try runImgfetch(["--thumbnail", "64", "-o", "tn_%s.jpg", sources[1]])
      #expect(refused.status == 5)
      #expect(
        refused.stderrText.contains("\(target) holds the thumbnail of another source, a.jpg"), "\(refused.stderrText)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == first)
      // The same source again is its own thumbnail: reused.
      let again = try runImgfetch(["--thumbnail", "64", "-o", "tn_%s.jpg", "--json", sources[0]])
      #expect(again.status == 0 && again.stdoutText.contains("\"reused\":true"))
      let replaced = try runImgfetch(["--thumbnail", "64", "-o", "tn_%s.jpg", "--overwrite", sources[1]])
      #expect(replaced.status == 0, "\(replaced.stderrText)")
      #expect(try ImageDecoder.probe(contentsOf: target).width == 43, "a.png's portrait thumbnail")
    }
  }

  /// Bad templates and misplaced `-o` are usage errors (exit 1); `decode -o` keeps its meaning.
  @Test(arguments: [
    (["--thumbnail", "64", "-o", "tn_%s.gif"], "ends with .gif: use .jpg, .jpeg, .png or .webp"),
    (["--thumbnail", "64", "-o", "tn_%s"], "has no extension"),
    (["--thumbnail", "64", "-o", "tn_%x.jpg"], "has %x: only %s"),
    (
      ["--thumbnail", "64", "--format", "png", "-o", "tn_%s.jpg"],
      "--format png and --output tn_%s.jpg name different formats"
    ),
    (["-o", "tn_%s.jpg"], "--output tn_%s.jpg goes with --thumbnail SIZE"),
    (["--thumbnail", "64,128", "-o", "tn_%s.jpg"], "with several sizes needs %d"),
  ])
  func badTemplatesAreUsageErrors(arguments: [String], message: String) throws {
    let run = try runImgfetch(arguments + [Fixtures.image("Landscape_1.jpg")])
    #expect(run.status == 1)
    #expect(run.stderrText.contains(message), "\(run.stderrText)")
  }

  /// A download's thumbnail with a relative template and no `--output-dir` would be named in the
  /// cache directory: refused before any request (the URL's port answers nothing).
  @Test func aDownloadNeedsAnOutputFolderForARelativeTemplate() throws {
    try ThumbnailCommandTests.withTemporaryDirectory { directory in
      let run = try runImgfetch([
        "--thumbnail", "64", "-o", "tn_%s.jpg", "--cache-dir", directory + "/cache", "http://127.0.0.1:9/a.jpg",
      ])
      #expect(run.status == 1)
      #expect(run.stderrText.contains("with downloads needs --output-dir DIR"), "\(run.stderrText)")
    }
  }
}
