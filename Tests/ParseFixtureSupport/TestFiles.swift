import Foundation
import ParseFetch

/// Paths in the repository and scratch directories for the ParseFetch and ImageFetch tests.
public enum TestFiles {
  /// The package root, found from this file's path.
  public static let root = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// A test image in `Fixtures/images`.
  public static func image(_ name: String) -> URL {
    root.appendingPathComponent("Fixtures/images/\(name)")
  }

  /// The bytes of a test image.
  public static func bytes(_ name: String) throws -> Data { try Data(contentsOf: image(name)) }

  /// A fresh, empty directory for one test, inside this run's directory.
  public static func scratchDirectory() throws -> URL {
    let url = runDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  /// `$TMPDIR/parsefetch-tests/<pid>`; the directories of earlier runs whose process is gone
  /// are removed when it is first used, so test scratch does not pile up.
  static let runDirectory: URL = {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("parsefetch-tests")
    let runs = (try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []
    for run in runs where Int32(run).map({ kill($0, 0) != 0 }) ?? true {
      try? FileManager.default.removeItem(at: base.appendingPathComponent(run))
    }
    return base.appendingPathComponent(String(getpid()))
  }()

  /// Accepts complete PNG and JPEG files by their signature and end marker: enough to prove
  /// the cache stores only what validation accepted (the real decoder lives in ImageFetch).
  public static let validateImage: @Sendable (String) throws -> Int = { path in
    let data = try Data(contentsOf: URL(fileURLWithPath: path))
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    let iend: [UInt8] = [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
    if data.starts(with: png), data.suffix(8).elementsEqual(iend) { return data.count }
    if data.starts(with: [0xFF, 0xD8, 0xFF]), data.suffix(2).elementsEqual([0xFF, 0xD9]) {
      return data.count
    }
    throw NotAnImage(bytes: data.count)
  }

  public struct NotAnImage: Error, CustomStringConvertible {
    public var bytes: Int
    public var description: String { "not a complete PNG or JPEG (\(bytes) bytes)" }
  }
}
