/// How large a thumbnail should be.
///
/// Sizes are in displayed pixels: when EXIF orientation is applied, a portrait photo stored
/// sideways is measured upright.
public enum ThumbnailSize: Sendable, Hashable, CustomStringConvertible {
  /// The longer side becomes this many pixels; the other keeps the aspect ratio.
  case longestSide(Int)
  /// The image is fitted into (or, with ``ThumbnailFit/cover``, made to cover) a box.
  case box(width: Int, height: Int)
  /// The width becomes this many pixels; the height keeps the aspect ratio (`256x`, as
  /// vipsthumbnail and ImageMagick write it).
  case width(Int)
  /// The height becomes this many pixels; the width keeps the aspect ratio (`x256`).
  case height(Int)

  /// The largest side accepted for a request: libjpeg's own limit.
  public static let maximumSide = 65_500

  /// Parses `N` (longest side), `WxH` (a box), `Wx` (width) or `xH` (height), as the command line
  /// writes them.
  /// - Parameter text: `256`, `320x200`, `256x` or `x256`.
  /// - Returns: `nil` when the text is not one of those forms or a number is out of 1…65,500.
  public init?(parsing text: String) {
    let parts = text.split(separator: "x", omittingEmptySubsequences: false)
    if parts.count == 2, parts[0].isEmpty != parts[1].isEmpty {
      guard let side = Int(parts[0].isEmpty ? parts[1] : parts[0]), (1...Self.maximumSide).contains(side),
        (parts[0].isEmpty ? parts[1] : parts[0]).allSatisfy(\.isNumber)
      else { return nil }
      self = parts[0].isEmpty ? .height(side) : .width(side)
      return
    }
    let numbers = parts.compactMap { Int($0) }
    guard numbers.count == parts.count, numbers.allSatisfy({ (1...Self.maximumSide).contains($0) })
    else {
      return nil
    }
    switch numbers.count {
    case 1: self = .longestSide(numbers[0])
    case 2: self = .box(width: numbers[0], height: numbers[1])
    default: return nil
    }
  }

  /// Whether `label` has a size's shape in a file name: `N`, `WxH`, `Wx` or `xH`, digits only (the
  /// range is not checked: a name is what it is).
  /// - Parameter label: The size part of a thumbnail's name, without `-cover`.
  /// - Returns: Whether it is one.
  public static func isLabel(_ label: Substring) -> Bool {
    let sides = label.split(separator: "x", omittingEmptySubsequences: false)
    let digits = { (side: Substring) in !side.isEmpty && side.allSatisfy { $0.isASCII && $0.isNumber } }
    switch sides.count {
    case 1: return digits(sides[0])
    case 2: return (digits(sides[0]) || digits(sides[1])) && sides.allSatisfy { $0.isEmpty || digits($0) }
    default: return false
    }
  }

  /// Whether every number is in 1…65,500.
  public var isValid: Bool {
    switch self {
    case .longestSide(let side), .width(let side), .height(let side): (1...Self.maximumSide).contains(side)
    case .box(let width, let height):
      (1...Self.maximumSide).contains(width) && (1...Self.maximumSide).contains(height)
    }
  }

  /// `256`, `320x200`, `256x` or `x256`: the form used on the command line and in thumbnail file
  /// names.
  public var description: String {
    switch self {
    case .longestSide(let side): "\(side)"
    case .width(let side): "\(side)x"
    case .height(let side): "x\(side)"
    case .box(let width, let height): "\(width)x\(height)"
    }
  }
}

/// How an image is fitted to a ``ThumbnailSize/box(width:height:)`` request.
public enum ThumbnailFit: String, Sendable, Hashable, CaseIterable {
  /// The whole image fits inside the box; one side may be shorter than the box.
  case inside
  /// The image covers the box and is cropped to it, keeping the centre.
  case cover
}
