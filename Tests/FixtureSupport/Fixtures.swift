import Foundation

/// Paths to the project's fixtures and build products, for tests.
public enum Fixtures {
  /// The repository root (three levels above this file).
  public static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `Fixtures/images`: the conformance images with MANIFEST.md and reference.tsv.
  public static let images: URL = root.appendingPathComponent("Fixtures/images")

  /// The path of a fixture image by file name.
  /// - Parameter name: A file name in `Fixtures/images`.
  /// - Returns: Its absolute path.
  public static func image(_ name: String) -> String { images.appendingPathComponent(name).path }

  /// The bytes of a fixture image.
  /// - Parameter name: A file name in `Fixtures/images`.
  /// - Returns: The file's contents.
  public static func bytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: images.appendingPathComponent(name)))
  }

  /// The directory holding the built products (`imgfetch`), found next to the running test binary.
  public static let productsDirectory: URL = {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    while url.path != "/" {
      url.deleteLastPathComponent()
      if FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("imgfetch").path) { return url }
    }
    return root.appendingPathComponent(".build/debug")
  }()

  /// A new empty temporary directory, removed by the caller with `FileManager.removeItem`.
  public static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("imgfetch-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}
