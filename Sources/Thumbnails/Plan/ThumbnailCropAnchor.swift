/// Which part of the image a ``ThumbnailFit/cover`` thumbnail keeps when it crops
/// (`imgfetch --crop centre|attention`), like vipsthumbnail's `--smartcrop` and sharp's `position`.
///
/// ```swift
/// var options = ThumbnailOptions(size: .box(width: 256, height: 256), fit: .cover)
/// options.cropAnchor = .attention
/// ```
///
/// Only the axis being cropped moves: a wide image keeps its full height and the crop window slides
/// left or right. The anchor is ignored for ``ThumbnailFit/inside`` and for requests other than
/// ``ThumbnailSize/box(width:height:)``, which never crop.
public enum ThumbnailCropAnchor: String, Sendable, Hashable, CaseIterable {
  /// The middle of the image (the default).
  case centre
  /// The window with the most detail, as libvips' `attention`: each pixel of the already-reduced
  /// image scores its luma gradient magnitude plus its saturation plus a skin-tone bonus, and the
  /// window with the largest summed score wins (the first such window, scanning from the top-left).
  case attention

  /// Reads a command-line spelling: `centre`, `center` or `attention`.
  /// - Parameter text: The spelling, case as typed.
  /// - Returns: `nil` for anything else.
  public init?(parsing text: String) {
    switch text {
    case "centre", "center": self = .centre
    case "attention": self = .attention
    default: return nil
    }
  }
}
