import ImageCodecs

/// Option values shared by the codec commands, turned into decoder settings.
enum CodecOptions {
  /// Reads `--max-pixels` into decode limits.
  static func limits(_ parsed: ParsedArguments) throws(UsageError) -> DecodeLimits {
    var limits = DecodeLimits.standard
    if let text = parsed.value("max-pixels") {
      limits.maxPixels = try NumericOption.integer(text, option: "max-pixels", in: NumericOption.maxPixels)
    }
    return limits
  }
}
