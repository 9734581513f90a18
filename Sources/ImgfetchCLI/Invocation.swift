import SystemFiles

/// What a command line asks for: one command, its operands and every option group, read against
/// the one option table (``OptionGroup/allSpecs``). Options may come in any order, before or after
/// the command and the operands, and mean the same for every kind of source.
public struct Invocation: Sendable {
  /// The commands. `fetch` is the default: `imgfetch [options] SOURCE...` or `--class`.
  public enum Command: String, Sendable, CaseIterable {
    /// Make sure each source is valid (downloaded and cached first when remote), with its thumbnail.
    case fetch
    /// One JSON object per file, from the header.
    case info
    /// Raw pixels of one file.
    case decode
    /// A full strict decode of each file.
    case verify
    /// Cache maintenance: `stats`, `clear`, `gc`.
    case cache
    /// `--help`.
    case help
    /// `--version`.
    case version

    /// The option groups that apply to the command; any other option given is a usage error.
    var groups: [OptionGroup] {
      switch self {
      case .fetch: [.parse, .network, .cache, .output, .work, .limits, .folders, .thumbnail]
      case .info, .verify: [.limits, .folders]
      case .decode: [.decode, .limits]
      case .cache: [.cache, .maintenance]
      case .help, .version: OptionGroup.allCases
      }
    }

    /// Options outside the groups that a command accepts anyway.
    var extraOptions: [String] {
      switch self {
      // info always prints JSON (--json is accepted for a uniform contract); --quiet leaves errors only.
      case .info, .verify: ["json", "quiet"]
      // With -o PATH, one JSON object describing what was written; decode prints nothing else but
      // errors, so --quiet means nothing to it.
      case .decode: ["json"]
      case .cache: ["json", "dry-run"]  // stats, clear and gc as one JSON object; what clear and gc would remove
      default: []
      }
    }
  }

  /// The command.
  public let command: Command
  /// The operands after the command: sources, files, or the cache action.
  public let operands: [String]
  /// Everything parsed, for reading the environment-backed settings later.
  public let parsed: ParsedArguments
  /// `--json`, `--quiet`, `--progress`.
  public let output: OutputOptions
  /// `--jobs`.
  public let work: WorkOptions
  /// `--max-pixels`, `--max-frames`.
  public let limits: LimitOptions
  /// `--thumbnail` and its shaping options.
  public let thumbnail: ThumbnailRequest
  /// `--recursive` and `--output-dir`.
  public let folders: FolderOptions
  /// `decode`'s options.
  public let decode: DecodeOutputOptions
  /// The Parse options as given.
  public let parse: ParseOptions
  /// Download limits.
  public let network: NetworkOptions
  /// The cache directory and `gc`'s age.
  public let cache: CacheOptions

  /// Parses and checks a command line.
  /// - Parameter arguments: The arguments after the program name.
  /// - Throws: ``UsageError`` naming the unknown option, the bad value, or the option that does not
  ///   apply to the command.
  public init(_ arguments: [String]) throws(UsageError) {
    // `--help` anywhere before `--` wins, also where it would be taken as a value (`--thumbnail --help`).
    let options = arguments.prefix { $0 != "--" }
    let parsed =
      options.contains("--help") || options.contains("-h")
      ? ParsedArguments(flags: ["help"]) : try parseArguments(arguments, specs: OptionGroup.allSpecs)
    self.parsed = parsed
    var operands = parsed.positionals
    if parsed.has("help") {
      command = .help
    } else if parsed.has("version") {
      command = .version
    } else if let first = operands.first, let named = Command(rawValue: first),
      ![Command.fetch, .version].contains(named)
    {
      command = named
      operands.removeFirst()
    } else if arguments.isEmpty {
      throw UsageError("nothing to do")
    } else {
      if let first = operands.first, let nearest = Self.nearestName(toUnknownWord: first) {
        throw UsageError("\(first) is neither a command nor a file; did you mean \(nearest)?")
      }
      command = .fetch
    }
    let allowed = Set(command.groups.flatMap { $0.specs.map(\.name) } + command.extraOptions + ["help", "version"])
    if let stray = parsed.given.first(where: { !allowed.contains($0) }) {
      throw UsageError("--\(stray) does not apply to \(command == .fetch ? "sources" : command.rawValue)")
    }
    // The list's sources follow the command line's, as if given there.
    if let list = parsed.value("from-file") { operands += try SourceList.read(list) }
    self.operands = operands
    output = try OutputOptions(parsed)
    work = try WorkOptions(parsed)
    limits = try LimitOptions(parsed)
    thumbnail = try ThumbnailRequest(parsed)
    folders = try FolderOptions(parsed)
    decode = try DecodeOutputOptions(parsed)
    parse = try ParseOptions(parsed)
    network = try NetworkOptions(parsed)
    cache = try CacheOptions(parsed)
    for group in [output, work, limits, thumbnail, folders, decode, parse, network, cache] as [any OptionValues] {
      try group.validate()
    }
    try checkOperands()
  }

  private func checkOperands() throws(UsageError) {
    switch command {
    case .fetch:
      // Checked after the options' values, so that `--thumbnail photo.jpg` says the size is missing.
      if operands.isEmpty && parse.className == nil {
        throw UsageError("nothing to fetch: give SOURCE... or --class C")
      }
      if let template = parsed.value("output"), thumbnail.options == nil {
        throw UsageError("--output \(template) goes with --thumbnail SIZE: it names the thumbnails (tn_%s.jpg)")
      }
      if parse.className != nil && !operands.isEmpty { throw UsageError("give either SOURCE... or --class, not both") }
      if thumbnail.options?.keepsCachedOriginal == false,
        let local = operands.first(where: { SourceKind(argument: $0) == .local })
      {
        throw UsageError(
          "--thumbnails-only removes downloaded originals from the cache, never a local file (\(local) is one)")
      }
      if parse.column == nil, let object = operands.first(where: { SourceKind(argument: $0).isParseObject }) {
        throw UsageError("\(object) is a Parse object: give --column NAME")
      }
    case .info, .verify:
      if operands.isEmpty { throw UsageError("\(command.rawValue) needs at least one FILE") }
    case .decode:
      if operands.count != 1 { throw UsageError("decode needs exactly one FILE") }
    case .cache:
      let actions = ["stats", "clear", "gc"]
      guard operands.count == 1, actions.contains(operands[0]) else {
        let guess = operands.count == 1 ? Suggestion.nearest(to: operands[0], in: actions) : nil
        let hint = guess.map { "; did you mean \($0)?" } ?? ""
        let got = operands.isEmpty ? "" : " (got \(operands.joined(separator: " "))\(hint))"
        throw UsageError("cache needs one of: stats, clear, gc" + got)
      }
      if parsed.value("max-age") != nil && operands[0] != "gc" { throw UsageError("--max-age goes with cache gc") }
      if parsed.value("max-size") != nil && operands[0] != "gc" { throw UsageError("--max-size goes with cache gc") }
      if parsed.value("cache-max-size") != nil {
        throw UsageError("--cache-max-size goes with fetches; cache gc takes --max-size")
      }
    case .help, .version: break
    }
  }

  /// The command or option (as `--name`) a first operand was likely meant to be: one that is not a
  /// file, a URL or a Parse object, but a word close to a command's or an option's name
  /// (`thumbnail`, `verfy`).
  /// - Parameter word: The first operand.
  /// - Returns: What to suggest, or nil when the word is a source or close to nothing.
  static func nearestName(toUnknownWord word: String) -> String? {
    guard !word.isEmpty, word.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }), !word.hasPrefix("-"),
      FileStatus.of(word) == nil
    else { return nil }
    let commands = Command.allCases.filter { ![.fetch, .help, .version].contains($0) }.map(\.rawValue)
    let options = OptionGroup.allSpecs.map(\.name)
    guard let nearest = Suggestion.nearest(to: word, in: commands + options) else { return nil }
    return commands.contains(nearest) ? nearest : "--" + nearest
  }

  /// Whether the command needs the fetch path or the cache: the cache, a URL, a Parse object or a class.
  /// Everything else (info, decode, verify, local files with or without thumbnails) runs without
  /// loading networking.
  public var needsNetwork: Bool {
    switch command {
    case .cache: true
    case .fetch: parse.className != nil || operands.contains { SourceKind(argument: $0) != .local }
    default: false
    }
  }
}

/// What a SOURCE argument names, decided without the network: an http(s) URL, a Parse
/// `Class/objectId` (when no file of that name exists), or a local file.
public enum SourceKind: Sendable, Equatable {
  /// A file on this machine.
  case local
  /// An `http://` or `https://` URL with a host.
  case url
  /// A Parse object.
  case object(className: String, objectID: String)

  /// Classifies an argument.
  /// - Parameter argument: A SOURCE as given.
  public init(argument: String) {
    let lower = argument.lowercased()
    for scheme in ["http://", "https://"] where lower.hasPrefix(scheme) {
      let rest = argument.dropFirst(scheme.count)
      if let host = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).first, !host.isEmpty {
        self = .url
        return
      }
    }
    let parts = argument.split(separator: "/", omittingEmptySubsequences: false)
    if parts.count == 2, FileStatus.of(argument) == nil,
      parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } })
    {
      self = .object(className: String(parts[0]), objectID: String(parts[1]))
      return
    }
    self = .local
  }

  /// Whether the source is a Parse object.
  public var isParseObject: Bool {
    if case .object = self { return true }
    return false
  }
}
