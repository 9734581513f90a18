/// The EXIF orientation (tag 0x0112): how stored pixels must be transformed to display upright.
///
/// Raw values are the EXIF numbers 1…8. A missing or undefined tag (0) is read as ``up``.
public enum ExifOrientation: Int, Sendable, CaseIterable {
  /// 1: stored upright.
  case up = 1
  /// 2: mirrored left to right.
  case upMirrored = 2
  /// 3: rotated 180°.
  case down = 3
  /// 4: mirrored top to bottom.
  case downMirrored = 4
  /// 5: mirrored along the main diagonal (transpose).
  case leftMirrored = 5
  /// 6: must be rotated 90° clockwise to display.
  case right = 6
  /// 7: mirrored along the anti-diagonal (transverse).
  case rightMirrored = 7
  /// 8: must be rotated 90° counter-clockwise to display.
  case left = 8

  /// Creates the orientation for an EXIF value; 0 and out-of-range values mean ``up``.
  /// - Parameter exifValue: The tag's value.
  public init(exifValue: Int) { self = ExifOrientation(rawValue: exifValue) ?? .up }

  /// Whether displaying upright swaps width and height (orientations 5–8).
  public var swapsDimensions: Bool { rawValue >= 5 }
}
