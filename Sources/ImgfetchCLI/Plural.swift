/// A count with its noun in the right number, for every message that counts things:
/// "1 partial download", "2 partial downloads", "1 entry", "3 entries".
/// - Parameters:
///   - count: How many.
///   - singular: The noun for one.
///   - plural: The noun for any other count; the singular with an "s" when not given.
/// - Returns: The count and the noun.
func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
  "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
}

/// The closing line of a command over several inputs that had failures, on standard error:
/// "1 of 3 items failed", "1 of 1 item failed" (a class walk of one object).
/// - Parameters:
///   - failed: How many failed.
///   - total: How many there were.
/// - Returns: The line, without the `imgfetch: ` prefix.
func failureSummary(failed: Int, of total: Int) -> String {
  "\(failed) of \(counted(total, "item")) failed"
}
