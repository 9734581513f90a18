import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// One verdict per file, however it arrives (issue 21, item 2): every input of the fixture corpora
/// and the fuzz seeds, every truncation of a few small files, and every file with bytes after its
/// end go through every path a file can take (decoded from memory and from a file, validated as
/// `imgfetch verify` does, streamed in random pieces, scaled, made into a thumbnail at each DCT scale,
/// downloaded and validated as the fetcher does), and each must give libjpeg's or libpng's own
/// verdict and error kind, and its pixels (at the same scale, or through the same thumbnail steps).
///
/// The synchronous decodes run on a thread of their own (`offThePool`), so they hold none of the
/// cooperative threads other suites' waits resume on.
@Suite(.timeLimit(.minutes(30))) struct CrossPathVerdictTests {
  /// A fresh directory for the downloads' cache and the truncations' files, removed by the caller.
  static func scratch() throws -> URL { try Fixtures.temporaryDirectory() }

  /// Runs `checks` through every path, the downloads included (of every `stride`-th check); returns
  /// every disagreement.
  static func problems(_ checks: [CrossPathCheck], downloadsEvery stride: Int = 1) async throws -> [String] {
    var problems = try await offThePool { checks.flatMap { $0.problems() } }
    let directory = try scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let downloads = DownloadPath(cache: try ScratchCache(directory: directory))
    // Several at a time: a download is mostly hand-offs between threads, little work.
    problems += await withTaskGroup(of: [String].self) { group in
      var found: [String] = []
      var running = 0
      for (index, check) in checks.enumerated() where index % stride == 0 {
        if running == 8, let done = await group.next() {
          found += done
          running -= 1
        }
        group.addTask { await check.downloadProblems(via: downloads, index: index) }
        running += 1
      }
      for await done in group { found += done }
      return found
    }
    return problems
  }

  /// The report of a test's disagreements: how many, and the first 40.
  static func report(_ problems: [String]) -> Comment {
    let more = problems.count > 40 ? "\n… and \(problems.count - 40) more" : ""
    return "\(problems.count) disagreements:\n\(problems.prefix(40).joined(separator: "\n"))\(more)"
  }

  @Test(arguments: Corpus.batches)
  func everyInputHasTheLibrarysVerdictOnEveryPath(_ batch: Corpus.Batch) async throws {
    #expect(!batch.files.isEmpty)
    let checks = try batch.files.enumerated().map { index, file in
      CrossPathCheck(
        name: file, bytes: try Corpus.bytes(file), file: Fixtures.root.appendingPathComponent(file).path,
        seed: UInt64(batch.index * 1000 + index + 1))
    }
    let problems = try await Self.problems(checks)
    #expect(problems.isEmpty, Self.report(problems))
  }

  /// Every corpus directory is in the harness, the regression fixtures and the fuzz seeds included.
  @Test func theHarnessCoversEveryCorpus() {
    for expected in [
      "Fixtures/images", "Fixtures/hostile", "Fixtures/progressive", "Fixtures/png-rows",
      "Fixtures/regressions/Verdicts",
      "Fixtures/verdicts/baseline", "Fixtures/verdicts/multiscan", "Fixtures/verdicts/chunks-after-idat",
      "Fixtures/verdicts/after-the-end", "Fixtures/verdicts/progressive-damage",
      "fuzz/seeds/FuzzParseJSON", "Fixtures/formats/webp", "Fixtures/formats/webp-made", "Fixtures/formats/gif",
    ] {
      #expect(Corpus.groups.contains(expected), "\(expected) is not in \(Corpus.groups)")
    }
    let batched = Corpus.batches.flatMap(\.files)
    #expect(batched.count == Set(batched).count && batched.count > 700, "every input once: \(batched.count)")
    #expect(Corpus.withTrailingData.count >= 20)
  }

  /// Files that end at every byte (sampled, deterministically, past the first 256 and before the
  /// last 64 bytes of a larger file): every path must say `truncated` (or what the library says
  /// of the prefix) alike.
  @Test(arguments: Corpus.sweep)
  func everyTruncationHasTheLibrarysVerdictOnEveryPath(_ file: String) async throws {
    let whole = try Corpus.bytes(file)
    let directory = try Self.scratch()
    defer { try? FileManager.default.removeItem(at: directory) }
    let checks = try Corpus.cuts(of: whole.count).map { length in
      let bytes = Array(whole[..<length])
      let path = directory.appendingPathComponent("\(length)").path
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      return CrossPathCheck(name: "\(file)[..<\(length)]", bytes: bytes, file: path, seed: UInt64(length + 1))
    }
    let problems = try await Self.problems(checks, downloadsEvery: 8)
    #expect(problems.isEmpty, Self.report(problems))
  }

  /// The decoding policy for bytes after the end of the image (after IEND's CRC, after a JPEG's
  /// EOI): libpng and libjpeg never read them, so they change neither the verdict nor the pixels,
  /// on any path. Each file must be judged on every path as the libraries judge it without them.
  @Test(arguments: Corpus.withTrailingData)
  func bytesAfterTheEndAreNotReadOnAnyPath(_ file: String) async throws {
    let bytes = try Corpus.bytes(file)
    let end = try #require(ImageEnd.offset(in: bytes), "\(file) has an end")
    #expect(end < bytes.count, "\(file) has bytes after its end")
    let image = Array(bytes[..<end])
    let withoutTrailer = DecodePaths.fromMemory(image, options: DecodePaths.libraryAlone())
    let withTrailer = DecodePaths.fromMemory(bytes, options: DecodePaths.libraryAlone())
    #expect(withTrailer.verdict == withoutTrailer.verdict, "the library reads past the end: \(withTrailer)")
    #expect(withTrailer.image == withoutTrailer.image, "the library's pixels change with what follows the end")
    let check = CrossPathCheck(
      name: file, bytes: bytes, file: Fixtures.root.appendingPathComponent(file).path, seed: UInt64(bytes.count),
      referenceBytes: image)
    let problems = try await Self.problems([check])
    #expect(problems.isEmpty, Self.report(problems))
  }
}
