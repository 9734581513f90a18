internal import CImageCodecs

/// How often imgfetch's own progressive JPEG decoder (`imc_jpeg_progressive.c`: a progressive
/// Huffman JPEG's scans decoded without libjpeg's entropy decoder) ran on the calling thread: the
/// tests' way to see which path decoded an image, since the two give the same pixels and verdicts
/// by design.
package enum ProgressiveJPEGCounts {
  /// Scans the decoder decoded, decodes it gave up on (libjpeg decoded them again from the first
  /// byte), and images whose pixels it made from each block's DC coefficient alone (1/8 scale,
  /// without libjpeg's coefficient buffers), on this thread since it started.
  package static func current() -> (scans: UInt64, gaveUp: UInt64, dcOnly: UInt64) {
    var scans: UInt64 = 0
    var gaveUp: UInt64 = 0
    var dcOnly: UInt64 = 0
    imc_jpeg_progressive_counts(&scans, &gaveUp, &dcOnly)
    return (scans, gaveUp, dcOnly)
  }
}
