import Foundation
@_spi(Fuzzing) import ImageCodecs
import Thumbnails

/// The ways a file's bytes reach a decoder in imgfetch, each through the public API a user (or
/// the command line) calls, and the libraries alone as the reference.
enum DecodePaths {
  /// Options that make libjpeg and libpng decode everything themselves (the reference).
  static func libraryAlone(_ options: DecodeOptions = DecodeOptions()) -> DecodeOptions {
    var options = options
    options.libjpegOnly = true
    options.libpngOnly = true
    return options
  }

  /// `ImageDecoder.decode(_:options:)`: the whole file from memory.
  static func fromMemory(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions()) -> PathOutcome {
    do throws(DecodeError) { return .accepted(try ImageDecoder.decode(bytes, options: options)) } catch {
      return .rejected(error)
    }
  }

  /// `ImageDecoder.decode(contentsOf:options:)`: the whole file from disk.
  static func fromFile(_ path: String, options: DecodeOptions = DecodeOptions()) -> PathOutcome {
    do throws(DecodeError) { return .accepted(try ImageDecoder.decode(contentsOf: path, options: options)) } catch {
      return .rejected(error)
    }
  }

  /// `ImageDecoder.validate(contentsOf:)`: what `imgfetch verify` runs.
  static func validated(_ path: String) -> PathOutcome {
    do throws(DecodeError) {
      _ = try ImageDecoder.validate(contentsOf: path)
      return .accepted(nil)
    } catch { return .rejected(error) }
  }

  /// A `StreamingDecoder` fed seeded random pieces (of up to 1...4096 bytes, by seed), rows read
  /// into a full image as they come; the last piece goes through `appendLast` for odd seeds.
  static func streamed(_ bytes: [UInt8], options: DecodeOptions = DecodeOptions(), seed: UInt64) -> PathOutcome {
    var random = SplitMix(seed: seed)
    // At most about 500 pieces: a large file in 1-byte pieces would take minutes in a debug build.
    let largest = max([1, 7, 300, 4096][Int(random.next() % 4)], bytes.count / 250)
    var cuts: [Int] = []
    var offset = 0
    while offset < bytes.count {
      offset += 1 + Int(random.next() % UInt64(largest))
      cuts.append(min(offset, bytes.count))
    }
    let decoder = StreamingDecoder(options: options)
    var image: Image?
    var row = 0
    func take() throws(DecodeError) {
      guard let size = decoder.outputSize, let format = decoder.outputPixelFormat else { return }
      if image == nil { image = try Image(width: size.width, height: size.height, pixelFormat: format) }
      while row < image!.height {
        let count = try decoder.readRows(into: &image!, at: row)
        if count == 0 { break }
        row += count
      }
    }
    do throws(DecodeError) {
      var start = 0
      for end in cuts {
        let piece = Array(bytes[start..<end])
        if end == bytes.count && seed % 2 == 1 { try decoder.appendLast(piece) } else { try decoder.append(piece) }
        start = end
        try take()
      }
      try decoder.finish()
      try take()
      guard let image, row == image.height else {
        return PathOutcome(verdict: .rejected(.invalidArgument), image: nil, detail: "finished with \(row) rows")
      }
      return .accepted(image)
    } catch { return .rejected(error) }
  }

  /// `Thumbnailer.image(from:)`: a thumbnail of bytes in memory.
  static func thumbnail(of bytes: [UInt8], options: ThumbnailOptions) -> PathOutcome {
    PathOutcome(Result { () throws(ThumbnailError) in try Thumbnailer(options: options).image(from: bytes) })
  }

  /// `Thumbnailer.image(contentsOf:)`: a thumbnail of a file (what `imgfetch --thumbnail` makes).
  static func thumbnail(ofFile path: String, options: ThumbnailOptions) -> PathOutcome {
    PathOutcome(Result { () throws(ThumbnailError) in try Thumbnailer(options: options).image(contentsOf: path) })
  }

  /// The reference thumbnail: a `ThumbnailStream` (the thumbnail's own resampling, at the plan's DCT
  /// scale) fed by the libraries alone, all bytes at once.
  static func libraryThumbnail(of bytes: [UInt8], options: ThumbnailOptions) -> PathOutcome {
    PathOutcome(
      Result { () throws(ThumbnailError) in
        let stream = try ThumbnailStream(options: options, flattensAlphaForJPEG: false)
        let decoder = StreamingDecoder(options: libraryAlone(stream.decodeOptions), scaleForHeader: stream.scale(for:))
        do throws(DecodeError) { try decoder.appendLast(bytes) } catch { throw .decode(error) }
        try stream.consumeRows(from: decoder)
        do throws(DecodeError) { try decoder.finish() } catch { throw .decode(error) }
        return try stream.finish(from: decoder)
      })
  }

  /// Thumbnail options (PNG output, so that the pixels survive a file) whose plan decodes a source
  /// with this header at `scale`, or nil when none does (a JPEG under 16 pixels is never decoded at
  /// 1/8 for a thumbnail): the smallest longest side that does, as a cover crop at most 64 rows high
  /// with the bilinear filter, so that the resampler (unoptimised in a debug build) does little work
  /// beyond what the decode feeds it. The decode, which is what this harness compares, is the whole
  /// image's either way.
  static func thumbnailOptions(for header: ImageHeader, at scale: JPEGScale) -> ThumbnailOptions? {
    func plan(_ options: ThumbnailOptions) -> ThumbnailPlan {
      ThumbnailPlan(
        sourceWidth: header.width, sourceHeight: header.height, orientation: header.orientation,
        format: header.format, options: options, shrinksOnLoad: header.shrinksOnLoad)
    }
    for side in 1...max(1, max(header.width, header.height)) {
      let whole = ThumbnailOptions(size: .longestSide(side), filter: .bilinear, format: .png())
      let planned = plan(whole)
      if planned.jpegScale.eighths > scale.eighths { return nil }  // the scale only grows with the side
      guard planned.jpegScale == scale else { continue }
      guard planned.height > 64 else { return whole }
      let band = ThumbnailOptions(
        size: .box(width: planned.width, height: 64), fit: .cover, filter: .bilinear, format: .png())
      return plan(band).jpegScale == scale ? band : whole
    }
    return nil
  }
}

/// A small deterministic random number generator (SplitMix64), so every run cuts the same pieces.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
