internal import CImageCodecs

/// How often imgfetch's own progressive JPEG decoder (`imc_jpeg_progressive.c`: a progressive
/// Huffman JPEG's scans decoded without libjpeg's entropy decoder) ran on the calling thread: the
/// tests' way to see which path decoded an image, since the two give the same pixels and verdicts
/// by design.
package enum ProgressiveJPEGCounts {
  /// Scans the decoder decoded, and decodes it gave up on (libjpeg decoded them again from the
  /// first byte), on this thread since it started.
  package static func current() -> (scans: UInt64, gaveUp: UInt64) {
    var scans: UInt64 = 0
    var gaveUp: UInt64 = 0
    imc_jpeg_progressive_counts(&scans, &gaveUp)
    return (scans, gaveUp)
  }
}
