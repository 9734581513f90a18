internal import CImageCodecs

/// How often imgfetch's own JPEG engine (`Sources/CodecEngines/JPEG`: a decoder of its own for
/// the scaled decodes behind thumbnails and validation) ran on the calling thread: the tests' way
/// to see which path decoded an image, since the engine and libjpeg give the same pixels and
/// verdicts by design.
package struct JPEGEngineCounts: Equatable, Sendable {
  /// Scans the engine decoded to their end, sequential and progressive.
  package var scans: UInt64
  /// Decodes it gave up on (libjpeg then decided).
  package var gaveUp: UInt64
  /// Progressive images whose 1x1-scaled components it decoded DC-only (1/8 scale).
  package var dcOnly: UInt64

  /// The counts of this thread since it started.
  package static func current() -> JPEGEngineCounts {
    var counts = imc_jpeg_engine_counts()
    imc_jpeg_engine_counts_of_thread(&counts)
    return JPEGEngineCounts(scans: counts.scans, gaveUp: counts.given_up, dcOnly: counts.dc_only)
  }
}
