/// One of N deterministic slices of a batch (`--shard K/N`), so that separate processes or machines
/// (a Kubernetes indexed Job, GNU parallel, a Slurm array) together cover every item exactly once.
///
/// Two ways to slice (`--shard-mode`):
/// - ``Mode/range`` (the default): a `--class` walk asks the server only for the objects whose
///   objectId lies in shard K's slice of the id space (`ObjectIDRange` in ParseFetch), so N shards
///   together read each row once. Balanced for Parse's random ten-character ids.
/// - ``Mode/hash``: every shard walks the whole class and keeps the objects whose 64-bit FNV-1a
///   hash of the objectId modulo N equals K - 1: balanced for any ids (custom ones too), but the
///   server sends the class N times.
///
/// A list of sources (not `--class`) is always sliced by hash of the objectId or source string.
/// Both functions are stable across machines and runs.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
  /// How a class is sliced.
  public enum Mode: String, Sendable, CaseIterable {
    /// The server sends each shard its own objectId range.
    case range
    /// Each shard walks the whole class and keeps one object in N by hash.
    case hash
  }

  /// This shard's number, 1…count.
  public let index: Int
  /// How many shards there are.
  public let count: Int
  /// How a class is sliced.
  public let mode: Mode

  /// Parses `K/N` with 1 ≤ K ≤ N, and the mode's name.
  /// - Parameters:
  ///   - text: For example `2/8`.
  ///   - modeName: `range` or `hash`; nil for `range`.
  /// - Throws: ``UsageError`` when the text is not of that form or the mode is unknown.
  public init(parsing text: String, mode modeName: String? = nil) throws(UsageError) {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count) ~= index
    else { throw UsageError("--shard must be K/N with 1 <= K <= N (got \(text))") }
    guard let mode = Mode(rawValue: modeName ?? Mode.range.rawValue) else {
      throw UsageError("--shard-mode must be range or hash (got \(modeName ?? ""))")
    }
    self.index = index
    self.count = count
    self.mode = mode
  }

  /// Whether the server slices the class for this shard (range mode), so that every object a
  /// class walk yields is already this shard's.
  public var slicesOnServer: Bool { mode == .range }

  /// Whether the item with this key is in the shard by hash (hash mode, and lists of sources).
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
