/// One of N deterministic slices of a batch (`--shard K/N`), so that separate processes or machines
/// (a Kubernetes indexed Job, GNU parallel, a Slurm array) together cover every item exactly once.
///
/// An item belongs to shard K (1-based) when the 64-bit FNV-1a hash of its key (the Parse objectId,
/// or the source string) modulo N equals K - 1. The hash is stable across machines and runs.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
  /// This shard's number, 1…count.
  public let index: Int
  /// How many shards there are.
  public let count: Int

  /// Parses `K/N` with 1 ≤ K ≤ N.
  /// - Parameter text: For example `2/8`.
  /// - Throws: ``UsageError`` when the text is not of that form.
  public init(parsing text: String) throws(UsageError) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count) ~= index
    else { throw UsageError("--shard must be K/N with 1 <= K <= N (got \(text))") }
    self.index = index
    self.count = count
  }

  /// Whether the item with this key is in the shard.
  /// - Parameter key: The item's stable key (Parse objectId or source string).
  /// - Returns: `true` for exactly one of the N shards.
  public func contains(_ key: String) -> Bool {
    Int(Shard.fnv1a(key) % UInt64(count)) == index - 1
  }

  /// `K/N`.
  public var description: String { "\(index)/\(count)" }

  /// 64-bit FNV-1a of the UTF-8 bytes.
  static func fnv1a(_ key: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in key.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01b3
    }
    return hash
  }
}
