/// The colour alpha is composited over when a thumbnail is written in a format without alpha
/// (JPEG): white by default (`imgfetch --background COLOUR`).
///
/// ```swift
/// var options = ThumbnailOptions(size: .longestSide(256), format: .jpeg())
/// options.background = ThumbnailBackground(parsing: "#202020")!
/// ```
public struct ThumbnailBackground: Sendable, Hashable, CustomStringConvertible {
  /// The red, green and blue levels, 0…255.
  public var red, green, blue: UInt8

  /// Creates a colour.
  /// - Parameters:
  ///   - red: 0…255.
  ///   - green: 0…255.
  ///   - blue: 0…255.
  public init(red: UInt8, green: UInt8, blue: UInt8) {
    (self.red, self.green, self.blue) = (red, green, blue)
  }

  /// White, the default.
  public static let white = ThumbnailBackground(red: 255, green: 255, blue: 255)

  /// The names ``init(parsing:)`` knows.
  public static let names: [(String, ThumbnailBackground)] = [
    ("white", .white), ("black", ThumbnailBackground(red: 0, green: 0, blue: 0)),
    ("gray", ThumbnailBackground(red: 128, green: 128, blue: 128)),
    ("grey", ThumbnailBackground(red: 128, green: 128, blue: 128)),
  ]

  /// Reads `white`, `black`, `gray`/`grey`, `#rrggbb` or `#rgb` (hex digits, any case).
  /// - Parameter text: The colour as written.
  /// - Returns: `nil` when it is none of those.
  public init?(parsing text: String) {
    let lower = text.lowercased()
    if let named = Self.names.first(where: { $0.0 == lower }) {
      self = named.1
      return
    }
    guard lower.hasPrefix("#") else { return nil }
    var digits = Array(lower.dropFirst())
    if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
    guard digits.count == 6, let value = UInt32(String(digits), radix: 16) else { return nil }
    self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
  }

  /// `#rrggbb`.
  public var description: String {
    "#" + [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
  }
}
