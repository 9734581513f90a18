import FixtureSupport
import Foundation
import Testing

/// The inputs the cross-path harness runs: every file of the fixture corpora (`Fixtures/**`, the
/// regression fixtures among them) and of the fuzz seeds (`fuzz/seeds/**`), grouped by directory.
enum Corpus {
  /// Files that describe or make inputs rather than being inputs.
  static let notInputs: Set<String> = ["md", "py", "sh", "tsv", "txt", "json", "md5"]

  /// Each directory (relative to the repository root) that holds input files directly, sorted.
  static let groups: [String] = {
    var found: Set<String> = []
    for top in ["Fixtures", "fuzz/seeds"] {
      for file in files(under: top, recursive: true) {
        found.insert(String(file.dropLast(URL(fileURLWithPath: file).lastPathComponent.count + 1)))
      }
    }
    return found.sorted()
  }()

  /// Part of a group's files: the groups are cut into batches of about the same work (a file's
  /// bytes, plus a constant per file), so that each test case stays short (well inside the suite's
  /// time limit under a sanitizer on a loaded machine) and the cases can run in parallel.
  struct Batch: Sendable, CustomTestStringConvertible {
    var group: String
    var files: [String]
    var index: Int
    var count: Int
    var testDescription: String { count == 1 ? group : "\(group) (part \(index + 1) of \(count))" }
  }

  /// Every group's files in batches.
  static let batches: [Batch] = groups.flatMap { group in
    var parts: [[String]] = [[]]
    var weight = 0
    for file in files(under: group) {
      let size =
        (try? FileManager.default.attributesOfItem(atPath: Fixtures.root.appendingPathComponent(file).path)[.size]
          as? Int) ?? 0
      if weight > 0 && weight + size > 800_000 {
        parts.append([])
        weight = 0
      }
      parts[parts.count - 1].append(file)
      weight += size + 20_000
    }
    return parts.enumerated().map { Batch(group: group, files: $1, index: $0, count: parts.count) }
  }

  /// The input files under `directory` (relative to the repository root), sorted, as relative paths.
  static func files(under directory: String, recursive: Bool = false) -> [String] {
    let root = Fixtures.root.appendingPathComponent(directory)
    let names: [String]
    if recursive {
      names = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String]) ?? []
    } else {
      names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    }
    return names.filter { name in
      var isDirectory: ObjCBool = false
      let url = root.appendingPathComponent(name)
      return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
        && !notInputs.contains(url.pathExtension) && !url.pathComponents.contains("LICENSES")
    }.map { "\(directory)/\($0)" }.sorted()
  }

  /// The files whose every prefix the truncation sweep decodes: small ones of each kind (a
  /// baseline JPEG, a multi-scan baseline, a progressive one, a PNG, an interlaced PNG, a lossy, a
  /// lossless and a lossy-with-alpha WebP, an animated one, an interlaced GIF and an animated one) and
  /// the multi-scan polyglot.
  static let sweep = [
    "Fixtures/verdicts/baseline/jpeg-baseline.jpg",
    "Fixtures/verdicts/multiscan/jpeg-multiscan-baseline.jpg",
    "Fixtures/progressive/p420-q100.jpg",
    "Fixtures/verdicts/chunks-after-idat/png-text-after-idat.png",
    "Fixtures/verdicts/after-the-end/png-after-iend-interlaced-garbage.png",
    "Fixtures/verdicts/multiscan/jpeg-multiscan-polyglot.jpg",
    "Fixtures/formats/webp/small_31x13.webp",
    "Fixtures/formats/webp/lossless_vec_1_7.webp",
    "Fixtures/formats/webp/lossy_alpha4.webp",
    "Fixtures/formats/webp-made/anim-3-frames.webp",
    "Fixtures/formats/gif/first_frame_transparency.gif",
    "Fixtures/formats/gif/dispose_bgnd.gif",
  ]

  /// The generated files (`Fixtures/verdicts`) with bytes after the end of their image.
  static let withTrailingData: [String] = files(under: "Fixtures/verdicts", recursive: true).filter { file in
    guard let bytes = try? bytes(file), let end = ImageEnd.offset(in: bytes) else { return false }
    return end < bytes.count
  }

  /// The bytes of a file named relative to the repository root. (An empty file is not read through
  /// `Data(contentsOf:)`, whose read buffer for it LeakSanitizer reports as a leak.)
  static func bytes(_ file: String) throws -> [UInt8] {
    let url = Fixtures.root.appendingPathComponent(file)
    let size = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? 0
    return size == 0 ? [] : [UInt8](try Data(contentsOf: url))
  }

  /// The lengths the sweep cuts a file of `count` bytes at: every one for a small file; for a larger
  /// one the first 160 and the last 48 (headers, the end of the data and the end marker) and a
  /// seeded sample of the rest, 300 in all.
  static func cuts(of count: Int) -> [Int] {
    guard count > 300 else { return Array(0..<count) }
    var lengths = Set(0..<160).union((count - 48)..<count)
    var random = SplitMix(seed: UInt64(count))
    while lengths.count < 300 { lengths.insert(160 + Int(random.next() % UInt64(count - 208))) }
    return lengths.sorted()
  }
}
