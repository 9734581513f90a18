import Foundation

/// imgbench's command line.
struct Options {
  var files: [String] = []
  var corpus: String?
  var iterations = 9
  var warmup = 1
  var json = false
  var smoke = false
  /// The decode cases to run; all that apply when neither they nor the thumbnail are chosen.
  var cases: Set<DecodeCase> = []
  /// Whether `--case thumbnail` was given.
  var thumbnailChosen = false
  /// Whether the in-process thumbnail is timed: when chosen, or when no case is.
  var timesThumbnail: Bool { thumbnailChosen || cases.isEmpty }
  /// The decode cases to time: those chosen, or all when no case is.
  var decodeCases: Set<DecodeCase> { cases.isEmpty && !thumbnailChosen ? Set(DecodeCase.allCases) : cases }
  /// The sides to run; both when empty (one side alone is for profiling, e.g. under callgrind).
  var sides: Set<Side> = []

  static let usage = """
    usage: imgbench [FILE...] [--corpus DIR] [--iterations N] [--warmup N] [--case NAME]... [--side swift|c]
                    [--json] [--smoke]

    Decodes each file in memory with imgfetch (ImageDecoder) and with a C loop over the same
    libraries, alternating them, and prints megapixels per second and the ratio imgfetch / C.
      FILE...          images to decode (default: every .jpg/.png in the corpus)
      --corpus DIR     the corpus directory (default: ../shared/bench/corpus beside the repository)
      --iterations N   timed decodes per file, case and side (default 9)
      --warmup N       untimed rounds first (default 1)
      --case NAME      only this case (repeatable): full-fresh, full-reused, scale-1/2, scale-1/4,
                       scale-1/8, thumbnail (256-px thumbnail in memory, imgfetch only)
      --side swift|c   only imgfetch or only the C baseline (for profiling; no ratios)
      --json           one JSON document on stdout instead of the table
      --smoke          one small file from the repository, one iteration, no warm-up, JSON: a check
                       that the harness works, not a measurement
    """

  /// Parses arguments (without the program name).
  /// - Throws: ``BenchError`` with the usage text for anything it does not understand.
  static func parse(_ arguments: [String]) throws(BenchError) -> Options {
    var options = Options()
    var rest = arguments[...]
    while let argument = rest.popFirst() {
      switch argument {
      case "--json": options.json = true
      case "--smoke": options.smoke = true
      case "--corpus": options.corpus = try value(of: argument, &rest)
      case "--iterations": options.iterations = try count(of: argument, &rest, minimum: 1)
      case "--warmup": options.warmup = try count(of: argument, &rest, minimum: 0)
      case "--case":
        let name = try value(of: argument, &rest)
        guard let kase = DecodeCase(rawValue: name) else {
          throw BenchError("unknown case \(name)\n\n\(usage)")
        }
        options.cases.insert(kase)
      case "--side":
        let name = try value(of: argument, &rest)
        guard let side = Side(rawValue: name) else { throw BenchError("--side needs swift or c") }
        options.sides.insert(side)
      case "-h", "--help": throw BenchError(usage)
      case _ where argument.hasPrefix("-"):
        throw BenchError("unknown option \(argument)\n\n\(usage)")
      default: options.files.append(argument)
      }
    }
    if options.smoke {
      options.iterations = 1
      options.warmup = 0
      options.json = true
    }
    return options
  }

  /// The files to measure: those given, else the smoke file or every image in the corpus, by name.
  func resolvedFiles() throws(BenchError) -> [String] {
    if !files.isEmpty { return smoke ? [files[0]] : files }
    let root = Options.repositoryRoot()
    if smoke { return [root.appendingPathComponent("Fixtures/images/Landscape_1.jpg").path] }
    let directory =
      corpus ?? root.appendingPathComponent("../shared/bench/corpus").standardized.path
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      throw BenchError(
        "no corpus at \(directory): pass --corpus DIR or files (benchmarks/corpus rebuilds it)")
    }
    let images = names.filter { $0.hasSuffix(".jpg") || $0.hasSuffix(".png") }.sorted()
    if images.isEmpty { throw BenchError("no .jpg or .png files in \(directory)") }
    return images.map { URL(fileURLWithPath: directory).appendingPathComponent($0).path }
  }

  /// The directory holding Package.swift above the running executable, else the current directory.
  static func repositoryRoot() -> URL {
    let executable =
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
      ?? CommandLine.arguments[0]
    var url = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
    while url.path != "/" {
      url.deleteLastPathComponent()
      if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
        return url
      }
    }
    return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
  }

  private static func value(of option: String, _ rest: inout ArraySlice<String>) throws(BenchError)
    -> String
  {
    guard let value = rest.popFirst() else { throw BenchError("\(option) needs a value") }
    return value
  }

  private static func count(of option: String, _ rest: inout ArraySlice<String>, minimum: Int)
    throws(BenchError)
    -> Int
  {
    let text = try value(of: option, &rest)
    guard let number = Int(text), number >= minimum else {
      throw BenchError("\(option) needs a number ≥ \(minimum)")
    }
    return number
  }
}
