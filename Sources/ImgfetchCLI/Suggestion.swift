/// "Did you mean …?" for a misspelt option or command: the known name closest to what was typed,
/// when it is close enough to be the likely intent.
enum Suggestion {
  /// The candidate nearest to `typed` by edit distance (insertions, deletions, substitutions and
  /// swaps of neighbouring letters), if it is within a third of the longer name's length (at least 1,
  /// at most 3); ties go to the first candidate.
  /// - Parameters:
  ///   - typed: What was typed, without dashes.
  ///   - candidates: The known names.
  /// - Returns: The nearest name, or nil when none is close.
  static func nearest(to typed: String, in candidates: [String]) -> String? {
    var best: (name: String, distance: Int)?
    for candidate in candidates {
      let distance = editDistance(typed.lowercased(), candidate)
      let allowed = min(3, max(1, max(typed.count, candidate.count) / 3))
      if distance <= allowed, distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.name
  }

  /// The optimal-string-alignment distance between two strings, by characters.
  static func editDistance(_ first: String, _ second: String) -> Int {
    let a = Array(first)
    let b = Array(second)
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    var previous2 = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], previous2[j - 2] + 1)
        }
      }
      (previous2, previous, current) = (previous, current, previous2)
    }
    return previous[b.count]
  }
}
