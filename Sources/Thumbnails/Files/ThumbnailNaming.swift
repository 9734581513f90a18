public import ImageCodecs

/// Where a thumbnail file goes: next to its original, as `<name>.thumb-<size>.<ext>`, or under a
/// ``ThumbnailDirectory`` mirroring the source tree, with the same file name.
///
/// - `<name>` is the original's whole file name, extension included, so that two originals in
///   one folder never share a thumbnail (`photo.jpg` and `photo.png` give `photo.jpg.thumb-256.jpg`
///   and `photo.png.thumb-256.jpg`).
/// - `<size>` is the request as written on the command line: `256` for a longest side,
///   `320x200` for a box with the `inside` fit, `320x200-cover` for a box with the `cover` fit.
/// - `<ext>` is the thumbnail's format's (its encoder's ``/ImageCodecs/ImageFormat/fileExtension``):
///   `jpg`, `png` or `webp`.
///
/// So `photos/photo.jpg` gives `photos/photo.jpg.thumb-256.jpg` and
/// `photos/photo.jpg.thumb-320x200-cover.webp`. (The cache's file classifier recognises
/// `<entry>.thumb-<W>[x<H>][-cover].<ext>` as a thumbnail whatever the extension.) Other settings
/// (quality, filter, orientation, upscaling, colour space) do not change the name; they are recorded
/// inside the file (see ``ThumbnailStamp``), and a thumbnail made with other settings is rebuilt in
/// place. A ``ThumbnailOptions/nameTemplate`` replaces the name (``ThumbnailNameTemplate``).
public enum ThumbnailNaming {
  /// The thumbnail path next to a source.
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

  /// The thumbnail path for a source with these options: next to it, or under
  /// ``ThumbnailOptions/outputDirectory``.
  /// - Parameters:
  ///   - source: The original's path.
  ///   - options: The options (size, fit, output folder).
  ///   - format: The thumbnail's format.
  /// - Returns: The path.
  /// - Throws: ``ThumbnailError/invalidOptions(_:)`` for a source outside the output folder's source root.
  public static func path(forSource source: String, options: ThumbnailOptions, format: ImageFormat)
    throws(ThumbnailError) -> String
  {
    let name = source.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? source
    if let template = options.nameTemplate {
      let made = template.name(forSourceNamed: name, sizeLabel: sizeLabel(options.size, fit: options.fit))
      if template.isAbsolute { return made }
      if let directory = options.outputDirectory { return try directory.folder(forSource: source) + "/" + made }
      guard let slash = source.lastIndex(of: "/") else { return made }
      return String(source[...slash]) + made
    }
    guard let directory = options.outputDirectory else {
      return path(forSource: source, size: options.size, fit: options.fit, format: format)
    }
    return path(
      forSource: try directory.folder(forSource: source) + "/" + name, size: options.size, fit: options.fit,
      format: format)
  }

  /// The first two sources whose thumbnails these options would write to one file (compared by
  /// real folders), or a source that would be its own thumbnail: the pairs a run refuses before
  /// any work. Only a ``ThumbnailOptions/nameTemplate`` can give them (today's names keep the
  /// source's whole name).
  /// - Parameters:
  ///   - sources: The source files.
  ///   - options: The options; every size in `sizes` is tried.
  ///   - sizes: The sizes written for each source (``ThumbnailOptions/size`` when empty).
  /// - Returns: The two sources (the same twice when a source is its own thumbnail) and the
  ///   thumbnail's path, or `nil`.
  public static func firstCollision(
    among sources: [String], options: ThumbnailOptions, sizes: [ThumbnailSize] = []
  ) -> (first: String, second: String, thumbnail: String)? {
    guard options.nameTemplate != nil else { return nil }
    let format = options.format.resolved(hasAlpha: false).format
    var taken: [[String]: String] = [:]
    for source in sources {
      taken[ThumbnailDirectory.components(ofFile: source)] = source
    }
    var written: [[String]: String] = [:]
    for source in sources {
      for size in sizes.isEmpty ? [options.size] : sizes {
        guard let target = try? path(forSource: source, options: options.sized(size), format: format) else { continue }
        let key = ThumbnailDirectory.components(ofFile: target)
        if let owner = taken[key] { return (owner, source, target) }
        if let other = written[key], other != source || sizes.count > 1 { return (other, source, target) }
        written[key] = source
      }
    }
    return nil
  }

  /// `256`, `256x`, `x256`, `320x200` or `320x200-cover`.
  /// - Parameters:
  ///   - size: The requested size.
  ///   - fit: The fit.
  /// - Returns: The size part of the file name.
  public static func sizeLabel(_ size: ThumbnailSize, fit: ThumbnailFit) -> String {
    switch size {
    case .longestSide, .width, .height: size.description
    case .box: fit == .cover ? "\(size)-cover" : size.description
    }
  }

  /// Whether a file name has a thumbnail's shape, `<name>.thumb-<W>[x<H>][-cover].<ext>`, with the
  /// extension of a format thumbnails are written in (``ThumbnailFormat/fileExtensions``).
  /// - Parameter name: A file name or path.
  /// - Returns: Whether it is named as a thumbnail.
  public static func isThumbnailName(_ name: String) -> Bool {
    let file = name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name
    guard let dot = file.lastIndex(of: "."),
      ThumbnailFormat.fileExtensions.contains(String(file[file.index(after: dot)...]))
    else { return false }
    let stem = Array(file[..<dot].utf8)
    let marker = Array(".thumb-".utf8)
    guard
      let at = stride(from: stem.count - marker.count, through: 1, by: -1).first(where: {
        Array(stem[$0..<($0 + marker.count)]) == marker
      })
    else { return false }
    var label = Substring(String(decoding: stem[(at + marker.count)...], as: UTF8.self))
    if label.hasSuffix("-cover") { label = label.dropLast(6) }
    return ThumbnailSize.isLabel(label)
  }

  /// Whether the file at `path` is a thumbnail imgfetch made: named as one (``isThumbnailName(_:)``)
  /// and carrying a ``ThumbnailStamp``, whatever its format. Reads only the file's stamp.
  /// - Parameter path: The file.
  /// - Returns: Whether it is one of imgfetch's own thumbnails.
  public static func isThumbnail(fileAt path: String) -> Bool {
    isThumbnailName(path) && ThumbnailStamp.read(fromFileAt: path) != nil
  }
}
