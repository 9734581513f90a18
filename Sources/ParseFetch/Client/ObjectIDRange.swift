/// A contiguous slice of the objectId space, `lowerBound <= id < upperBound` in bytewise order, so
/// that N processes can each ask the server for their own part of a class.
///
/// ```swift
/// let slice = ObjectIDRange(shard: 2, of: 8)   // ids from "7kV" up to, not including, "FV"
/// for try await page in client.objectFiles(in: "Photo", column: "image", range: slice) { … }
/// ```
///
/// Parse Server makes objectIds of ten characters drawn at random from `[0-9A-Za-z]`, so slicing by
/// the leading characters balances the shards. The first shard has no lower bound and the last no
/// upper bound, so any id at all (custom ids too) falls in exactly one shard, balanced or not.
/// The server must compare ids bytewise, as MongoDB does (and PostgreSQL with the `C` collation);
/// the walk checks every id it receives against its slice and fails when the server orders
/// otherwise. Slices asked for in any server order still cover every id at least once (each id
/// passes from "not below" to "below" the boundaries somewhere), and the check refuses every id
/// outside its own bytewise slice, so N shards either read each object exactly once or one fails.
public struct ObjectIDRange: Sendable, Hashable, CustomStringConvertible {
  /// The smallest id in the slice, or nil for no lower bound.
  public let lowerBound: String?
  /// The first id after the slice, or nil for no upper bound.
  public let upperBound: String?

  /// The characters of Parse's generated ids, in bytewise order.
  static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
  /// How many leading characters the boundaries use: 62⁴ cells, so shards differ in size by one
  /// cell in about fifteen million, far below the randomness of the ids themselves.
  static let boundaryLength = 4

  /// A slice with explicit bounds.
  /// - Parameters:
  ///   - lowerBound: The smallest id in the slice, or nil.
  ///   - upperBound: The first id after the slice, or nil.
  public init(lowerBound: String?, upperBound: String?) {
    self.lowerBound = lowerBound
    self.upperBound = upperBound
  }

  /// Shard `index` of `count` (1-based): the `index`-th of `count` equal slices of the id space of
  /// Parse's generated ids. Together the `count` slices cover every possible id exactly once.
  /// - Parameters:
  ///   - index: The shard, 1…count.
  ///   - count: How many shards, at least 1.
  /// - Precondition: `1 <= index <= count`.
  public init(shard index: Int, of count: Int) {
    precondition(count >= 1 && (1...count).contains(index), "shard \(index) of \(count)")
    self.init(
      lowerBound: index == 1 ? nil : Self.boundary(index - 1, of: count),
      upperBound: index == count ? nil : Self.boundary(index, of: count))
  }

  /// Whether an id lies in the slice, comparing UTF-8 bytes as the server does.
  /// - Parameter objectID: The id.
  /// - Returns: `lowerBound <= objectID < upperBound`.
  public func contains(_ objectID: String) -> Bool {
    if let lowerBound, objectID.utf8.lexicographicallyPrecedes(lowerBound.utf8) { return false }
    if let upperBound, !objectID.utf8.lexicographicallyPrecedes(upperBound.utf8) { return false }
    return true
  }

  /// `[lower, upper)`, with `…` for a missing bound.
  public var description: String { "[\(lowerBound ?? "…"), \(upperBound ?? "…"))" }

  /// The id prefix at fraction `step / count` of the id space: `boundaryLength` base-62 digits,
  /// without trailing `0`s (the smallest digit), which keeps the boundaries in strictly the same
  /// order while making them short.
  static func boundary(_ step: Int, of count: Int) -> String {
    let base = alphabet.count
    var cells = 1
    for _ in 0..<boundaryLength { cells *= base }
    // step * cells fits easily: cells is about 1.5e7 and step < count, both far from overflow for
    // any count a command line can sensibly ask for; the multiplication is checked all the same.
    let (product, overflow) = step.multipliedReportingOverflow(by: cells)
    var position = overflow ? Int(Double(step) / Double(count) * Double(cells)) : product / count
    var digits = [UInt8](repeating: alphabet[0], count: boundaryLength)
    for place in stride(from: boundaryLength - 1, through: 0, by: -1) {
      digits[place] = alphabet[position % base]
      position /= base
    }
    while digits.count > 1, digits.last == alphabet[0] { digits.removeLast() }
    return String(decoding: digits, as: UTF8.self)
  }
}
