import ParseFetch
import Testing
import Thumbnails

/// The cache's file classifier and the thumbnail writer agree on which names are thumbnails: a
/// thumbnail of any format the writer knows is never counted, kept or evicted as a cache entry.
@Suite(.timeLimit(.minutes(30))) struct ThumbnailFormatCacheTests {
  @Test(arguments: ThumbnailFormat.fileExtensions)
  func everyThumbnailFormatIsAThumbnailToTheCache(fileExtension: String) {
    for size in ["256", "320x200", "320x200-cover"] {
      let name = "photo.jpg.thumb-\(size).\(fileExtension)"
      #expect(CacheFile(fileName: name) == .thumbnail(entry: "photo.jpg"), "\(name)")
      #expect(ThumbnailNaming.isThumbnailName(name))
    }
  }
}
