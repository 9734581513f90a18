/// Reads the values of numeric options, each checked against a finite range that the message states,
/// so that `--timeout inf`, `--timeout 1e17`, `nan` or a negative number is a usage error and never
/// reaches arithmetic that could trap.
enum NumericOption {
  /// Ranges of the numeric options, in one place for the parser and `--help`.
  static let timeout: ClosedRange<Double> = 0.001...86_400
  static let minSpeed: ClosedRange<Int> = 0...(1 << 40)
  static let maxTime: ClosedRange<Double> = 0...604_800
  static let maxAge: ClosedRange<Double> = 0...315_360_000
  static let retries: ClosedRange<Int> = 0...100
  static let jobs: ClosedRange<Int> = 1...256
  static let maxBytes: ClosedRange<Int> = 1...(1 << 48)
  static let maxPixels: ClosedRange<Int> = 1...4_290_250_000
  static let maxFrames: ClosedRange<Int> = 1...1_000_000
  static let quality: ClosedRange<Int> = 1...100
  static let cacheSize: ClosedRange<Int64> = 1...(1 << 60)

  /// A whole number within `range`.
  /// - Parameters:
  ///   - text: The option's value.
  ///   - option: The option's long name without dashes, for the message.
  ///   - range: The accepted values.
  /// - Returns: The number.
  /// - Throws: ``UsageError`` naming the option, the range and the value given.
  static func integer(_ text: String, option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
    guard let value = Int(text), range.contains(value) else {
      throw UsageError(
        "--\(option) needs a whole number from \(range.lowerBound) to \(range.upperBound) (got \(text))")
    }
    return value
  }

  /// A finite number of seconds within `range`.
  /// - Parameters:
  ///   - text: The option's value.
  ///   - option: The option's long name without dashes, for the message.
  ///   - range: The accepted values.
  /// - Returns: The number of seconds.
  /// - Throws: ``UsageError`` naming the option, the range and the value given.
  static func seconds(_ text: String, option: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
    guard let value = Double(text), value.isFinite, range.contains(value) else {
      throw UsageError(
        "--\(option) needs seconds from \(format(range.lowerBound)) to \(format(range.upperBound)) (got \(text))")
    }
    return value
  }

  /// The multipliers of a size's suffix: K, M, G and T in powers of 1000, as `du --si` and disk
  /// makers count; Ki, Mi, Gi and Ti in powers of 1024; a trailing `B` is allowed (`20GB`, `512MiB`).
  static let sizeSuffixes: [String: Double] = [
    "": 1, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
    "KI": 1024, "MI": 1_048_576, "GI": 1_073_741_824, "TI": 1_099_511_627_776,
  ]

  /// A size in bytes: a number, whole or decimal, with an optional suffix (`20G`, `1.5Gi`, `500M`,
  /// `4096`), within `range`.
  /// - Parameters:
  ///   - text: The option's value.
  ///   - option: The option's long name without dashes, for the message.
  ///   - range: The accepted sizes in bytes.
  /// - Returns: The size in bytes.
  /// - Throws: ``UsageError`` naming the option and the value given.
  static func byteSize(_ text: String, option: String, in range: ClosedRange<Int64>) throws(UsageError) -> Int64 {
    var unit = text.uppercased()
    if unit.hasSuffix("B") { unit.removeLast() }
    let digits = unit.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
    let suffix = String(unit.dropFirst(digits.count))
    guard let number = Double(digits), number.isFinite, let multiplier = sizeSuffixes[suffix],
      number * multiplier >= Double(range.lowerBound), number * multiplier <= Double(range.upperBound)
    else {
      throw UsageError("--\(option) needs a size such as 20G, 500M or 1.5Gi (K, M, G, T: 1000s; Ki, Mi, Gi, Ti: 1024s) (got \(text))")
    }
    return Int64(number * multiplier)
  }

  private static func format(_ number: Double) -> String {
    number == number.rounded() ? String(Int(number)) : String(number)
  }
}
