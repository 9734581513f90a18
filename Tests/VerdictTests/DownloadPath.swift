import Foundation
import ImageCodecs
import ImageFetch
import ParseFetch
import ParseFixtureSupport
import Thumbnails

/// A download's validation, through `ImageFetcher`'s public API (`cachedFile(at:)`, `image(at:)`,
/// `thumbnail(at:options:)`) with the in-process `LocalFileLoader` as its downloader: the bytes reach
/// the fetcher's own validator (the decode that decides whether a download may enter the cache) in
/// chunks as a transfer brings them, and nothing leaves the process.
struct DownloadPath {
  /// The cache every download of one test goes into (each input under URLs of its own).
  let cache: any FileCaching

  /// The outcomes of downloading `file` three ways: validated only (a JPEG decoded at 1/8, as
  /// `imgfetch URL` does), with its pixels, and with a thumbnail (`thumbnail`, PNG output, decoded
  /// back for the comparison).
  /// - Parameters:
  ///   - file: The input as a file, served as the download's body.
  ///   - index: Makes the URLs unique in the cache.
  ///   - byteCount: The file's size.
  ///   - seed: Picks the transfer's chunk size (from 1 byte for a small file to 64 KiB).
  ///   - thumbnail: The thumbnail's options.
  /// - Returns: One outcome per way, labelled.
  func outcomes(of file: String, byteCount: Int, index: Int, seed: UInt64, thumbnail: ThumbnailOptions) async
    -> [(String, PathOutcome)]
  {
    var random = SplitMix(seed: seed)
    let sizes = byteCount < 8192 ? [1, 7, 512, 16 << 10] : [512, 4096, 16 << 10, 64 << 10]
    let chunkSize = sizes[Int(random.next() % UInt64(sizes.count))]
    let base = "http://downloads.invalid/\(index)"
    let verdictURL = URL(string: "\(base)/verdict/input")!
    let pixelsURL = URL(string: "\(base)/pixels/input")!
    let thumbnailURL = URL(string: "\(base)/thumbnail/input")!
    let loader = LocalFileLoader([verdictURL: file, pixelsURL: file, thumbnailURL: file], chunkSize: chunkSize)
    let fetcher: ImageFetcher
    do { fetcher = try ImageFetcher(cache: cache, downloader: loader) } catch {
      return [("download", Self.notAVerdict(error))]
    }
    let label = "downloaded in \(chunkSize)-byte chunks"
    var outcomes: [(String, PathOutcome)] = []
    do {
      _ = try await fetcher.cachedFile(at: verdictURL)
      outcomes.append(("\(label), validated", .accepted(nil)))
    } catch { outcomes.append(("\(label), validated", Self.outcome(error))) }
    do {
      outcomes.append(("\(label), with its pixels", .accepted(try await fetcher.image(at: pixelsURL))))
    } catch { outcomes.append(("\(label), with its pixels", Self.outcome(error))) }
    do {
      let made = try await fetcher.thumbnail(at: thumbnailURL, options: thumbnail)
      outcomes.append(("\(label), with a thumbnail", DecodePaths.fromFile(made.thumbnail.path)))
    } catch { outcomes.append(("\(label), with a thumbnail", Self.outcome(error))) }
    return outcomes
  }

  /// A failed fetch's verdict: the validator's decode error, or a failure that is no verdict.
  static func outcome(_ error: ImageFetchError) -> PathOutcome {
    switch error {
    case .invalidImage(_, let decodeError): .rejected(decodeError)
    case .thumbnail(.decode(let decodeError)): .rejected(decodeError)
    default: notAVerdict(error)
    }
  }

  static func notAVerdict(_ error: any Error) -> PathOutcome {
    PathOutcome(verdict: .rejected(.io), image: nil, detail: "the download failed for another reason: \(error)")
  }
}
