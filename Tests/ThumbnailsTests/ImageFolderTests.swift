import FixtureSupport
import Foundation
import Testing
import Thumbnails

/// The walk behind folder operands: which files it lists, in which order, and what it never
/// touches (hidden names, FIFOs, links to folders).
@Suite(.timeLimit(.minutes(10))) struct ImageFolderTests {
  static func copy(_ fixture: String, to path: String) throws {
    try FileManager.default.createDirectory(
      atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: Fixtures.image(fixture), toPath: path)
  }

  static func images(_ entries: [ImageFolder.Entry]) -> [String] {
    entries.compactMap { if case .image(let path) = $0 { path } else { nil } }
  }

  @Test func imagesAreFoundByNameOrContentInByteOrder() throws {
    try TestImages.withTemporaryDirectory { directory in
      let root = directory + "/photos"
      try Self.copy("Landscape_1.jpg", to: root + "/b.jpg")
      try Self.copy("basn6a08.png", to: root + "/B.PNG")  // upper case sorts first in byte order
      try Self.copy("Landscape_1.jpg", to: root + "/scan")  // no extension: its first bytes say JPEG
      try Self.copy("empty.jpg", to: root + "/empty.jpg")  // named as an image: listed, for the caller to report
      try Data("plain text".utf8).write(to: URL(fileURLWithPath: root + "/notes.txt"))
      try Data([0x89, 0x50]).write(to: URL(fileURLWithPath: root + "/short"))  // too short to be a PNG
      try Self.copy("Landscape_1.jpg", to: root + "/.hidden.jpg")
      try Self.copy("Landscape_1.jpg", to: root + "/.trash/x.jpg")
      try Self.copy("Portrait_2.jpg", to: root + "/a/c.jpeg")
      try Self.copy("Portrait_2.jpg", to: root + "/a/deeper/d.jfif")
      #expect(mkfifo(root + "/pipe.jpg", 0o644) == 0)  // never opened: a walk cannot hang on it
      try FileManager.default.createSymbolicLink(atPath: root + "/a/up", withDestinationPath: "..")
      try FileManager.default.createSymbolicLink(atPath: root + "/a/link.png", withDestinationPath: "../B.PNG")
      try FileManager.default.createSymbolicLink(atPath: root + "/a/dangling.jpg", withDestinationPath: "nowhere.jpg")

      #expect(
        Self.images(ImageFolder.walk(root, recursive: false))
          == ["B.PNG", "b.jpg", "empty.jpg", "scan"].map { root + "/" + $0 })
      // Recursive: each folder's files at its place; the link to a file listed under its own name,
      // the link to a folder left out, the link to nothing named as an image listed, so that it
      // fails with its reason (issue 30.10: it was left out without a word).
      #expect(
        Self.images(ImageFolder.walk(root + "/", recursive: true))
          == ["B.PNG", "a/c.jpeg", "a/dangling.jpg", "a/deeper/d.jfif", "a/link.png", "b.jpg", "empty.jpg", "scan"].map
        {
          root + "/" + $0
        })
      #expect(ImageFolder.walk(root + "/a/deeper", recursive: false) == [.image(root + "/a/deeper/d.jfif")])
    }
  }

  @Test func aFolderThatCannotBeListedIsAnEntryOfItsOwn() throws {
    let entries = ImageFolder.walk("/nonexistent-\(UUID().uuidString)", recursive: true)
    #expect(entries.count == 1)
    guard case .unreadable(let folder, let reason) = entries.first else {
      Issue.record("expected an unreadable entry, got \(entries)")
      return
    }
    #expect(folder.hasPrefix("/nonexistent-") && reason == "No such file or directory")
  }
}
