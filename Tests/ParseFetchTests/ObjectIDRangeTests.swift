import ParseFixtureSupport
import Testing

@testable import ParseFetch

/// The objectId slices of `--shard K/N`: a partition of every possible id, balanced for Parse's ids.
@Suite(.timeLimit(.minutes(30))) struct ObjectIDRangeTests {
  static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

  static func randomID(length: Int = 10) -> String {
    String((0..<length).map { _ in alphabet.randomElement()! })
  }

  @Test(arguments: 1...12)
  func slicesAreContiguousAndCoverTheWholeSpace(count: Int) {
    let slices = (1...count).map { ObjectIDRange(shard: $0, of: count) }
    #expect(slices.first?.lowerBound == nil && slices.last?.upperBound == nil)
    for (left, right) in zip(slices, slices.dropFirst()) {
      #expect(left.upperBound != nil && left.upperBound == right.lowerBound)
    }
    let bounds = slices.dropFirst().compactMap(\.lowerBound)
    #expect(zip(bounds, bounds.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) })
  }

  /// Every id — Parse's, custom ones, odd characters, the bounds themselves — is in exactly one slice.
  @Test(arguments: [1, 2, 3, 5, 8, 61, 62, 63, 1000])
  func everyIDIsInExactlyOneSlice(count: Int) {
    let slices = (1...count).map { ObjectIDRange(shard: $0, of: count) }
    var ids = (0..<500).map { _ in Self.randomID() }
    ids += ["", "0", "00000000", "zzzzzzzzzz", "~", "user_42", "ÄÖ", "a-b", "Z", "a", "9zzzzzzzzz"]
    ids += slices.compactMap(\.lowerBound) + slices.compactMap(\.lowerBound).map { $0 + "0" }
    for id in ids {
      #expect(slices.filter { $0.contains(id) }.count == 1, "\(id)")
    }
  }

  /// With Parse's random ids, each of N slices gets about 1/N of the class.
  @Test(arguments: [2, 3, 7, 8])
  func randomParseIDsAreBalanced(count: Int) {
    let slices = (1...count).map { ObjectIDRange(shard: $0, of: count) }
    let total = 20_000
    var sizes = [Int](repeating: 0, count: count)
    for _ in 0..<total {
      let id = Self.randomID()
      sizes[slices.firstIndex { $0.contains(id) }!] += 1
    }
    let expected = Double(total) / Double(count)
    // Binomial spread: several standard deviations (about sqrt(expected)) is far below 10 %.
    #expect(sizes.allSatisfy { abs(Double($0) - expected) < 0.1 * expected }, "\(sizes)")
  }

  @Test func boundariesAreShortLeadingCharacters() {
    #expect(ObjectIDRange(shard: 1, of: 2).upperBound == "V")
    #expect(ObjectIDRange(shard: 2, of: 2) == ObjectIDRange(lowerBound: "V", upperBound: nil))
    #expect(ObjectIDRange(shard: 2, of: 8).description == "[7kV, FV)")
    #expect(ObjectIDRange(shard: 1, of: 1) == ObjectIDRange(lowerBound: nil, upperBound: nil))
  }
}
