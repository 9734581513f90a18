/// Reads the values of numeric options, each checked against a finite range that the message states,
/// so that `--timeout inf`, `--timeout 1e17`, `nan` or a negative number is a usage error and never
/// reaches arithmetic that could trap.
enum NumericOption {
  /// Ranges of the numeric options, in one place for the parser and `--help`.
  static let timeout: ClosedRange<Double> = 0.001...86_400
  static let maxAge: ClosedRange<Double> = 0...315_360_000
  static let retries: ClosedRange<Int> = 0...100
  static let jobs: ClosedRange<Int> = 1...256
  static let maxBytes: ClosedRange<Int> = 1...(1 << 48)
  static let maxPixels: ClosedRange<Int> = 1...4_290_250_000
  static let maxFrames: ClosedRange<Int> = 1...1_000_000
  static let quality: ClosedRange<Int> = 1...100

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

  private static func format(_ number: Double) -> String {
    number == number.rounded() ? String(Int(number)) : String(number)
  }
}
