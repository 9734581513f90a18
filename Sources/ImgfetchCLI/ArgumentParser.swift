/// A command-line option a command accepts.
public struct OptionSpec: Sendable, Equatable {
  /// The long name without dashes, such as `pixel-format`.
  public let name: String
  /// A one-letter alias without the dash, such as `o`.
  public let shortName: Character?
  /// Whether the option takes a value (`--name VALUE` or `--name=VALUE`).
  public let takesValue: Bool
  /// One line for `--help`.
  public let help: String
  /// The placeholder shown in `--help` for the value (`N`, `PATH`, …).
  public let valueName: String

  /// Creates an option.
  /// - Parameters:
  ///   - name: The long name without dashes.
  ///   - shortName: A one-letter alias, if any.
  ///   - takesValue: Whether a value follows.
  ///   - valueName: The value's placeholder in `--help`.
  ///   - help: One line of help.
  public init(
    _ name: String, short shortName: Character? = nil, value takesValue: Bool = false, valueName: String = "VALUE",
    help: String
  ) {
    self.name = name
    self.shortName = shortName
    self.takesValue = takesValue
    self.valueName = valueName
    self.help = help
  }

  /// `-o, --output PATH` as `--help` shows it.
  var synopsis: String {
    (shortName.map { "-\($0), " } ?? "") + "--\(name)" + (takesValue ? " \(valueName)" : "")
  }
}

/// The result of parsing: option values by long name, flags present, and positional arguments.
public struct ParsedArguments: Sendable, Equatable {
  /// Values of options that take one, by long name; repeated options keep the last value.
  public var values: [String: String] = [:]
  /// Long names of the flags given.
  public var flags: Set<String> = []
  /// Arguments that are not options, in order (`-` alone is positional).
  public var positionals: [String] = []
  /// Long names of every option given (flags and options with values), in order of first use.
  public var given: [String] = []

  /// Creates parsed arguments.
  /// - Parameters:
  ///   - values: Option values by long name.
  ///   - flags: Flags given.
  ///   - positionals: Other arguments.
  public init(values: [String: String] = [:], flags: Set<String> = [], positionals: [String] = []) {
    self.values = values
    self.flags = flags
    self.positionals = positionals
    given = Array(values.keys) + Array(flags)
  }

  /// The value of `name`, if given.
  /// - Parameter name: A long option name.
  /// - Returns: The value, or `nil`.
  public func value(_ name: String) -> String? { values[name] }

  /// Whether flag `name` was given.
  /// - Parameter name: A long option name.
  /// - Returns: `true` when present.
  public func has(_ name: String) -> Bool { flags.contains(name) }
}

/// A wrong command line, reported as one line and exit code 1.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, in one line.
  public let message: String
  /// Creates a usage error.
  /// - Parameter message: What is wrong.
  public init(_ message: String) { self.message = message }
  /// The message.
  public var description: String { message }
}

/// Parses arguments against a table of ``OptionSpec``s. `--` ends the options.
/// - Parameters:
///   - arguments: The arguments after the command name.
///   - specs: The options the command accepts.
/// - Returns: The parsed arguments.
/// - Throws: ``UsageError`` for an unknown option (with the nearest known one, when one is close), a
///   missing value or a value given to a flag.
public func parseArguments(_ arguments: [String], specs: [OptionSpec]) throws(UsageError) -> ParsedArguments {
  var parsed = ParsedArguments()
  var index = 0
  var optionsEnded = false
  while index < arguments.count {
    let argument = arguments[index]
    index += 1
    if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
      parsed.positionals.append(argument)
      continue
    }
    if argument == "--" {
      optionsEnded = true
      continue
    }
    var name: String
    var inlineValue: String? = nil
    let spec: OptionSpec?
    if argument.hasPrefix("--") {
      name = String(argument.dropFirst(2))
      if let equals = name.firstIndex(of: "=") {
        inlineValue = String(name[name.index(after: equals)...])
        name = String(name[..<equals])
      }
      spec = specs.first { $0.name == name }
    } else {
      name = String(argument.dropFirst())
      spec = name.count == 1 ? specs.first { $0.shortName == name.first } : nil
    }
    guard let spec else {
      let typed = inlineValue == nil ? argument : "--" + name
      let nearest = argument.hasPrefix("--") ? Suggestion.nearest(to: name, in: specs.map(\.name)) : nil
      throw UsageError("unknown option \(typed)" + (nearest.map { "; did you mean --\($0)?" } ?? ""))
    }
    if !parsed.given.contains(spec.name) { parsed.given.append(spec.name) }
    if spec.takesValue {
      if let inlineValue {
        parsed.values[spec.name] = inlineValue
      } else {
        guard index < arguments.count else { throw UsageError("option --\(spec.name) needs a value") }
        parsed.values[spec.name] = arguments[index]
        index += 1
      }
    } else {
      guard inlineValue == nil else { throw UsageError("option --\(spec.name) takes no value") }
      parsed.flags.insert(spec.name)
    }
  }
  return parsed
}
