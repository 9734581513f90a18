public import ImageCodecs

/// Where a thumbnail file goes: next to its original, as `<name>.thumb-<size>.<ext>`.
///
/// - `<name>` is the original's whole file name, extension included, so that two originals in
///   one folder never share a thumbnail (`photo.jpg` and `photo.png` give `photo.jpg.thumb-256.jpg`
///   and `photo.png.thumb-256.jpg`).
/// - `<size>` is the request as written on the command line: `256` for a longest side,
///   `320x200` for a box with the `inside` fit, `320x200-cover` for a box with the `cover` fit.
/// - `<ext>` is `jpg` or `png`, the thumbnail's format.
///
/// So `photos/photo.jpg` gives `photos/photo.jpg.thumb-256.jpg` and
/// `photos/photo.jpg.thumb-320x200-cover.jpg`. (The cache's file classifier recognises exactly
/// `<entry>.thumb-<W>[x<H>][-cover].(jpg|png)` as a thumbnail.) Other settings (quality, filter, orientation,
/// upscaling) do not change the name; they are recorded inside the file (see ``ThumbnailStamp``),
/// and a thumbnail made with other settings is rebuilt in place.
public enum ThumbnailNaming {
  /// The thumbnail path for a source.
  /// - Parameters:
  ///   - source: The original's path.
  ///   - size: The requested size.
  ///   - fit: The fit (only box requests name it, and only when it is `cover`).
  ///   - format: The thumbnail's format.
  /// - Returns: The path next to the original.
  public static func path(
    forSource source: String, size: ThumbnailSize, fit: ThumbnailFit, format: ImageFormat
  )
    -> String
  {
    "\(source).thumb-\(sizeLabel(size, fit: fit)).\(format.fileExtension)"
  }

  /// `256`, `320x200` or `320x200-cover`.
  /// - Parameters:
  ///   - size: The requested size.
  ///   - fit: The fit.
  /// - Returns: The size part of the file name.
  public static func sizeLabel(_ size: ThumbnailSize, fit: ThumbnailFit) -> String {
    switch size {
    case .longestSide: size.description
    case .box: fit == .cover ? "\(size)-cover" : size.description
    }
  }
}
