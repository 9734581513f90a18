/// How large a thumbnail should be.
///
/// Sizes are in displayed pixels: when EXIF orientation is applied, a portrait photo stored
/// sideways is measured upright.
public enum ThumbnailSize: Sendable, Hashable, CustomStringConvertible {
  /// The longer side becomes this many pixels; the other keeps the aspect ratio.
  case longestSide(Int)
  /// The image is fitted into (or, with ``ThumbnailFit/cover``, made to cover) a box.
  case box(width: Int, height: Int)

  /// The largest side accepted for a request: libjpeg's own limit.
  public static let maximumSide = 65_500

  /// Parses `N` (longest side) or `WxH` (a box), as the command line writes them.
  /// - Parameter text: `256` or `320x200`.
  /// - Returns: `nil` when the text is not one of those forms or a number is out of 1…65,500.
  public init?(parsing text: String) {
    let parts = text.split(separator: "x", omittingEmptySubsequences: false)
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

  /// Whether every number is in 1…65,500.
  public var isValid: Bool {
    switch self {
    case .longestSide(let side): (1...Self.maximumSide).contains(side)
    case .box(let width, let height):
      (1...Self.maximumSide).contains(width) && (1...Self.maximumSide).contains(height)
    }
  }

  /// `256` or `320x200`: the form used on the command line and in thumbnail file names.
  public var description: String {
    switch self {
    case .longestSide(let side): "\(side)"
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
