import ImageCodecs
import SystemFiles
import Thumbnails

/// The work done on an image file on this machine, whether it was named on the command line or
/// has just been downloaded into the cache: one path for both, so a local file and a download give
/// the same outcome.
public enum LocalItem {
  /// The reason a source is skipped when it is one of imgfetch's own thumbnails.
  public static let thumbnailSkipReason = "it is a thumbnail made by imgfetch"

  /// Validates the file (unless it was validated when it was stored), reads its header and size,
  /// and makes or reuses its thumbnail.
  ///
  /// Without a thumbnail, the validation is a full strict decode, row by row
  /// (`ImageDecoder.validate`). With one, the decode that makes the thumbnail is the validation (every scan of
  /// a progressive JPEG is decoded, so the verdict is the full decode's); a reused thumbnail's stamp
  /// says the file is unchanged since it was made.
  /// - Parameters:
  ///   - path: The image file.
  ///   - outcome: The item's outcome, filled in (failure included).
  ///   - thumbnail: The thumbnail settings, if any.
  ///   - limits: The decode limits.
  ///   - alreadyValidated: Whether the file was validated when it was stored (a cache entry).
  ///   - sizes: With more than one, every size's thumbnail from one decode (`--thumbnail 64,256`).
  public static func examine(
    _ path: String, into outcome: inout ItemOutcome, thumbnail: ThumbnailOptions?, limits: DecodeLimits,
    alreadyValidated: Bool, sizes: [ThumbnailSize] = []
  ) {
    do throws(ThumbnailError) {
      // One of imgfetch's own thumbnails (any format, WebP included, which is not decoded) is
      // skipped before anything reads it as a source.
      if let thumbnail, !alreadyValidated, isImgfetchThumbnail(path, template: thumbnail.nameTemplate) {
        outcome.skipped = thumbnailSkipReason
        return
      }
      let header: ImageHeader
      do throws(DecodeError) {
        header = try ImageDecoder.probe(contentsOf: path, limits: limits)
        if thumbnail == nil && !alreadyValidated {
          _ = try ImageDecoder.validate(contentsOf: path, options: DecodeOptions(limits: limits))
        }
      } catch {
        throw .decode(error)
      }
      outcome.record(header)
      if outcome.bytes == 0, let status = FileStatus.of(path) { outcome.bytes = Int64(status.size) }
      if let thumbnail, sizes.count > 1 {
        // One decode for every size.
        outcome.thumbnails = try Thumbnailer(options: thumbnail).makeThumbnails(forFileAt: path, sizes: sizes)
        outcome.thumbnail = outcome.thumbnails.first
        sayColorNote(of: outcome.thumbnails, source: path)
      } else if let thumbnail {
        outcome.thumbnail = try Thumbnailer(options: thumbnail).makeThumbnail(forFileAt: path)
        sayColorNote(of: [outcome.thumbnail].compactMap { $0 }, source: path)
      }
    } catch {
      outcome.failure = describe(error)
    }
  }

  /// Says on standard error, once, that the source's colour profile could not be used, when the
  /// thumbnails were made now (a reused one carries no note): `SOURCE: ICC profile ignored: …;
  /// treated as sRGB`.
  /// - Parameters:
  ///   - thumbnails: What was made or reused.
  ///   - source: The source as the line names it.
  static func sayColorNote(of thumbnails: [ThumbnailResult], source: String) {
    if let note = thumbnails.lazy.compactMap(\.colorNote).first { Console.error("\(source): \(note); treated as sRGB") }
  }

  /// Whether the file is a thumbnail imgfetch made, in any format (named as one and carrying a stamp).
  /// With `--output TEMPLATE`, a file named by the template's shape (`tn_photo.jpg` for
  /// `tn_%s.jpg`) and carrying a stamp is one too.
  static func isImgfetchThumbnail(_ path: String, template: ThumbnailNameTemplate? = nil) -> Bool {
    if ThumbnailNaming.isThumbnail(fileAt: path) { return true }
    guard let template, template.matches(fileName: path) else { return false }
    return ThumbnailStamp.read(fromFileAt: path) != nil
  }

  /// The exit-code class and one-line message of a decode or thumbnail error.
  public static func describe(_ error: ThumbnailError) -> (kind: ItemOutcome.FailureKind, message: String) {
    switch error {
    case .decode(let error): describe(error)
    // Not the file's fault, but the file could not be processed within the memory there is: exit 4
    // as a decode over a limit, with the message that says so.
    case .outOfMemory: (.invalidImage, error.description)
    case .write(let error): (.fileSystem, error.description)
    case .encode(let error): (.fileSystem, error.description)
    case .occupied: (.fileSystem, error.description)
    case .invalidOptions: (.invalidImage, error.description)
    }
  }

  /// The exit-code class and one-line message of a decode error: an unreadable file is a file-system
  /// failure, an image over a limit says so, anything else is an invalid image.
  public static func describe(_ error: DecodeError) -> (kind: ItemOutcome.FailureKind, message: String) {
    switch error.kind {
    case .io: (.fileSystem, error.description)
    default: (.invalidImage, error.description)
    }
  }
}
