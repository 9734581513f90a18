internal import CImageCodecs

/// How often imgfetch's own PNG image-data path (a PNG's IDAT chunks, plain or interlaced, inflated
/// and unfiltered without libpng's row reader) ran on the calling thread: the tests' way to see which path decoded
/// an image, since the two give the same pixels and verdicts by design.
package enum PNGRowsCounts {
  /// Images the path decoded to their end, and images it gave up on (libpng decoded them again),
  /// on this thread since it started.
  package static func current() -> (finished: UInt64, gaveUp: UInt64) {
    var finished: UInt64 = 0
    var gaveUp: UInt64 = 0
    imc_png_rows_counts(&finished, &gaveUp)
    return (finished, gaveUp)
  }
}
