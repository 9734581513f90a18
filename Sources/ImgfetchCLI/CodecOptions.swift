import ImageCodecs

/// Option values shared by the codec commands, turned into decoder settings.
enum CodecOptions {
  /// Reads `--max-pixels` into decode limits.
  static func limits(_ parsed: ParsedArguments) throws(UsageError) -> DecodeLimits {
    var limits = DecodeLimits.standard
    if let text = parsed.value("max-pixels") {
      guard let value = Int(text), value > 0 else { throw UsageError("--max-pixels needs a positive whole number") }
      limits.maxPixels = value
    }
    return limits
  }
}
