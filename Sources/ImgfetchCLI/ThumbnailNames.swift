import SystemFiles
import Thumbnails

/// The checks `--output TEMPLATE` needs before any work: two sources (or two sizes) that would
/// write one file, a source that would be its own thumbnail, and downloads whose thumbnails would
/// land in the cache directory under names the cache does not own.
enum ThumbnailNames {
  /// Refuses the run when the template gives two local sources one thumbnail.
  /// - Parameters:
  ///   - sources: The local source files.
  ///   - options: The thumbnail options (with their output folder).
  ///   - sizes: Every size written.
  /// - Throws: ``UsageError`` naming both sources and the file.
  static func check(localSources sources: [String], options: ThumbnailOptions?, sizes: [ThumbnailSize])
    throws(UsageError)
  {
    guard let options, let template = options.nameTemplate else { return }
    if sizes.count > 1 && !template.namesTheSize {
      throw UsageError("--output \(template) with several sizes needs %d (the size) in the name")
    }
    // imgfetch's own thumbnails among the sources (a folder walked again) are skipped, not made.
    let made = sources.filter { !LocalItem.isImgfetchThumbnail($0, template: template) }
    guard let (first, second, path) = ThumbnailNaming.firstCollision(among: made, options: options, sizes: sizes)
    else { return }
    if FileStatus.of(path) != nil, FileSystem.realPath(path) == FileSystem.realPath(first) {
      let over = first == second ? "\(first) itself" : "the source \(first)"
      throw UsageError("--output \(template) would write \(second)'s thumbnail over \(over)")
    }
    throw UsageError("--output \(template) gives \(first) and \(second) one thumbnail, \(path)")
  }

  /// Refuses a relative template without `--output-dir` when something is downloaded: the
  /// thumbnails would go next to the cache's entries, under names the cache neither counts nor
  /// evicts.
  static func checkDownloads(options: ThumbnailOptions?, downloads: Bool) throws(UsageError) {
    guard downloads, let template = options?.nameTemplate, !template.isAbsolute, options?.outputDirectory == nil
    else { return }
    throw UsageError(
      "--output \(template) with downloads needs --output-dir DIR (or an absolute template): it would name files in the cache directory"
    )
  }
}
