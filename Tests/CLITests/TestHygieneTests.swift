import FixtureSupport
import Foundation
import Testing

/// The rules that keep the suite from hanging or flaking (issue 21, item 4), checked on the test
/// sources themselves:
/// - every suite has a time limit (a test that starts a process or a server must end; the rule is
///   kept for every suite, so a suite cannot start one later and forget), and no test lives outside
///   a suite that has one; a suite whose tests wait for child processes runs them on threads of their
///   own (`.runsOnTestThreads`), off the cooperative pool the other tests need. A limit is a hang
///   guard, not a timing: Swift Testing counts from a test's start, including the time it shares two
///   cores with every other test, which in a whole-suite run is most of the run (a heavy decode
///   suite ended 9.5 minutes after it started in a 12-minute run on a loaded machine). The suites
///   that had a limit keep theirs (ten minutes, mostly); the others have thirty;
/// - no test starts a child with Foundation's `Process` (whose children can hold other tests' pipe
///   ends and keep them waiting for end-of-file): ``ChildProcess`` starts them with descriptors 0-2
///   only;
/// - no test reads `/proc` through Foundation's readers (which leak or trap when the process exits
///   mid-read): ``ProcFiles`` does;
/// - nothing the tests start installs packages (parallel `apt-get` runs fail on the dpkg lock):
///   `scripts/install-deps` installs them before the tests.
@Suite(.timeLimit(.minutes(10))) struct TestHygieneTests {
  /// The Swift sources of every test target, relative to the repository root.
  static let sources: [String] = {
    var found: [String] = []
    for top in ["Tests", "benchmarks/BenchmarkSmokeTests"] {
      let root = Fixtures.root.appendingPathComponent(top)
      for case let name as String in FileManager.default.enumerator(atPath: root.path)?.allObjects ?? []
      where name.hasSuffix(".swift") {
        found.append("\(top)/\(name)")
      }
    }
    return found.sorted()
  }()

  static func text(_ file: String) throws -> String {
    try String(contentsOf: Fixtures.root.appendingPathComponent(file), encoding: .utf8)
  }

  /// A file's lines without `//` comments (doc comments included); string literals are kept.
  static func code(_ file: String) throws -> [String] {
    try text(file).components(separatedBy: "\n").map { line in
      let trimmed = line.drop { $0 == " " }
      return trimmed.hasPrefix("//") ? "" : line
    }
  }

  /// The top-level declarations of a file, each as its header (attributes and all before its first
  /// `{`) and its whole text. swift-format puts them at column 0 and closes each with a `}` there;
  /// the lines of multi-line string literals are skipped.
  static func declarations(_ lines: [String]) -> [(header: String, body: String)] {
    var found: [(String, String)] = []
    var current: [String] = []
    var open = false
    var inString = false
    func flush() {
      let text = current.joined(separator: "\n")
      let header = text.firstIndex(of: "{").map { String(text[..<$0]) } ?? text
      if !current.isEmpty { found.append((header, text)) }
      current = []
      open = false
    }
    for line in lines {
      if line.components(separatedBy: "\"\"\"").count == 2 { inString.toggle() }
      if inString { continue }
      if open {
        current.append(line)
        if line.hasPrefix("}") { flush() }
        continue
      }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if trimmed.isEmpty || trimmed.hasPrefix("import ") || trimmed.hasPrefix("#") || trimmed.hasPrefix("\"\"\"") {
        continue
      }
      current.append(line)
      if line.contains("{") && !line.hasSuffix("}") {
        open = true
      } else if !line.hasPrefix("@") || line.contains("{") {
        flush()  // a one-line declaration, or one whose braces close on its line
      }
    }
    flush()
    return found
  }

  /// The calls that wait for a child process on the calling thread.
  static let childRunners = [
    "runProcess(", "runImgfetch(", "runMeasured(", "runImgfetchMeasured(", "ChildProcess.Running(",
  ]

  @Test func everySuiteHasATimeLimitAndEveryTestIsInOne() throws {
    var limited: Set<String> = []
    var offenders: [String] = []
    var extensions: [(file: String, name: String)] = []
    for file in Self.sources {
      let lines = try Self.code(file)
      // Every @Suite attribute, nested suites' included, names its time limit; in a file that waits
      // for children synchronously, it runs the tests on threads of their own too.
      let waitsForChildren =
        !file.hasSuffix("/TestHygieneTests.swift")  // which names the calls it looks for
        && Self.childRunners.contains { runner in lines.contains { $0.contains(runner) } }
      for (number, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces).hasPrefix("@Suite") {
        let attribute = lines[number...].joined(separator: "\n").prefix { $0 != "{" }
        if !attribute.contains(".timeLimit(") { offenders.append("\(file):\(number + 1): @Suite without .timeLimit") }
        if waitsForChildren && !attribute.contains(".runsOnTestThreads") {
          offenders.append("\(file):\(number + 1): waits for child processes, but its @Suite has no .runsOnTestThreads")
        }
      }
      for (header, body) in Self.declarations(lines) where body.contains("@Test") {
        let words = header.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" })
        guard
          let keyword = words.firstIndex(where: { ["struct", "class", "enum", "actor", "extension"].contains($0) }),
          keyword + 1 < words.count
        else {
          offenders.append("\(file): a @Test outside a type")
          continue
        }
        let name = String(words[keyword + 1])
        if header.contains("@Suite") && header.contains(".timeLimit(") {
          limited.insert(name)
        } else if words[keyword] == "extension" {
          extensions.append((file, name))
        } else {
          offenders.append("\(file): \(name) holds tests but has no @Suite(.timeLimit(...))")
        }
      }
    }
    for (file, name) in extensions where !limited.contains(name) {
      offenders.append("\(file): extension \(name) holds tests of a suite without a time limit")
    }
    #expect(Self.sources.count > 60)
    #expect(limited.count > 60)
    #expect(offenders.isEmpty, "\(offenders.joined(separator: "\n"))")
  }

  /// Whether a line makes or names Foundation's `Process` (`Process()`, `Foundation.Process`,
  /// `: Process`), not a longer name ending in it (`aChildThatLeavesAProcess()`).
  static func startsAProcess(_ line: String) -> Bool {
    if line.contains("Foundation.Process") || line.contains(": Process ") || line.contains(": Process\n")
      || line.hasSuffix(": Process")
    {
      return true
    }
    var rest = line[...]
    while let found = rest.range(of: "Process()") {
      let before = rest[..<found.lowerBound].last
      if before.map({ !($0.isLetter || $0.isNumber || $0 == "_" || $0 == ".") }) ?? true { return true }
      rest = rest[found.upperBound...]
    }
    return false
  }

  @Test func noTestStartsAChildWithFoundationsProcess() throws {
    var offenders: [String] = []
    for file in Self.sources where !file.hasSuffix("/TestHygieneTests.swift") {  // which names what it looks for
      for (number, line) in try Self.code(file).enumerated()
      where Self.startsAProcess(line) {
        offenders.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
      }
    }
    #expect(offenders.isEmpty, "start children with ChildProcess:\n\(offenders.joined(separator: "\n"))")
  }

  @Test func procIsReadOnlyThroughProcFiles() throws {
    let readers = [
      "contentsOfFile", "contentsOf:", "FileHandle(forReadingAtPath", "FileHandle(forReadingFrom",
      "contentsOfDirectory", "destinationOfSymbolicLink", "fopen(",
    ]
    var offenders: [String] = []
    for file in Self.sources where !file.hasSuffix("/ProcFiles.swift") {
      for (number, line) in try Self.code(file).enumerated()
      where line.contains("\"/proc") && readers.contains(where: { line.contains($0) }) {
        offenders.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
      }
    }
    #expect(offenders.isEmpty, "read /proc with ProcFiles:\n\(offenders.joined(separator: "\n"))")
  }

  /// The scripts and servers the tests start install nothing.
  @Test func nothingTheTestsStartInstallsPackages() throws {
    for script in ["scripts/nginx-test-host.sh", "scripts/demo", "Fixtures/parse-server/server.py"] {
      let lines = try Self.text(script).components(separatedBy: "\n").filter {
        !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#")
      }
      let installs = lines.filter { $0.contains("apt-get") || $0.contains("pip install") }
      #expect(installs.isEmpty, "\(script) installs: \(installs)")
      // The demo installs (scripts/install, which runs scripts/install-deps) only when a user runs it,
      // not with IMGFETCH_DEMO_BIN, as DemoTests do.
      if script == "scripts/demo" {
        let install = try #require(lines.firstIndex { $0.contains("scripts/install") })
        #expect(lines[..<install].contains { $0.contains("if [ -z \"$bin\" ]") })
      }
    }
  }
}
