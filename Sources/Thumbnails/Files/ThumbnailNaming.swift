public import ImageCodecs

/// Where a thumbnail file goes: next to its original, as `<stem>.thumb-<size>.<ext>`.
///
/// - `<stem>` is the original's file name without its last extension (`photo.jpg` → `photo`,
///   `archive.tar.gz` → `archive.tar`; a name without a dot, or whose only dot is the first
///   character, is kept whole).
/// - `<size>` is the request as written on the command line: `256` for a longest side,
///   `320x200` for a box with the `inside` fit, `320x200-cover` for a box with the `cover` fit.
/// - `<ext>` is `jpg` or `png`, the thumbnail's format.
///
/// So `photos/photo.jpg` gives `photos/photo.thumb-256.jpg` and
/// `photos/photo.thumb-320x200-cover.jpg`. Other settings (quality, filter, orientation,
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
    let slash = source.lastIndex(of: "/")
    let directory = slash.map { String(source[...$0]) } ?? ""
    let name = slash.map { String(source[source.index(after: $0)...]) } ?? source
    var stem = name
    if let dot = name.lastIndex(of: "."), dot != name.startIndex { stem = String(name[..<dot]) }
    return "\(directory)\(stem).thumb-\(sizeLabel(size, fit: fit)).\(format.fileExtension)"
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
