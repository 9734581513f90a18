import ImageCodecs

/// One kind of decode that imgbench times on both sides, imgfetch and the C baseline.
enum DecodeCase: String, CaseIterable, Codable {
  /// Full size into a new buffer per decode (allocated, page-faulted in and freed each time).
  case fullFresh = "full-fresh"
  /// Full size into a buffer kept from the previous decode.
  case fullReused = "full-reused"
  /// JPEG DCT scaling to 1/2, 1/4 and 1/8 (shrink on load), into a kept buffer.
  case half = "scale-1/2"
  case quarter = "scale-1/4"
  case eighth = "scale-1/8"

  /// The cases that apply to a format: DCT scaling exists only for JPEG.
  static func cases(for format: ImageFormat) -> [DecodeCase] {
    format == .jpeg ? allCases : [.fullFresh, .fullReused]
  }

  /// The output is 1/`scaleDenominator` of the source size.
  var scaleDenominator: Int {
    switch self {
    case .fullFresh, .fullReused: 1
    case .half: 2
    case .quarter: 4
    case .eighth: 8
    }
  }

  /// The same scale as imgfetch's option.
  var jpegScale: JPEGScale { JPEGScale(eighths: 8 / scaleDenominator) }

  /// Whether each decode gets a new buffer.
  var isFresh: Bool { self == .fullFresh }
}

/// The two decoders compared.
enum Side: String, CaseIterable, Codable {
  /// imgfetch: `ImageDecoder` through the CImageCodecs shim.
  case swift
  /// The C baseline in `benchmarks/cbaseline`.
  case c
}
