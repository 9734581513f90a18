internal import CImageCodecs

/// The memory layout of one pixel in an ``Image``.
///
/// Channels are interleaved in the order the name gives (`rgba8` is R, G, B, A). 8-bit formats use
/// one byte per channel; 16-bit formats use one host-endian `UInt16` per channel. Alpha, where
/// present, is straight (not premultiplied).
public enum PixelFormat: Int, Sendable, CaseIterable, CustomStringConvertible {
  /// One 8-bit gray channel.
  case gray8 = 1
  /// 8-bit gray, then 8-bit alpha.
  case grayAlpha8 = 2
  /// 8-bit red, green, blue.
  case rgb8 = 3
  /// 8-bit red, green, blue, alpha.
  case rgba8 = 4
  /// One 16-bit gray channel.
  case gray16 = 5
  /// 16-bit gray, then 16-bit alpha.
  case grayAlpha16 = 6
  /// 16-bit red, green, blue.
  case rgb16 = 7
  /// 16-bit red, green, blue, alpha.
  case rgba16 = 8

  /// The number of interleaved channels.
  public var channelCount: Int {
    switch self {
    case .gray8, .gray16: 1
    case .grayAlpha8, .grayAlpha16: 2
    case .rgb8, .rgb16: 3
    case .rgba8, .rgba16: 4
    }
  }

  /// Bytes per channel sample: 1 or 2.
  public var bytesPerSample: Int { rawValue >= PixelFormat.gray16.rawValue ? 2 : 1 }

  /// Bytes per pixel: channels times bytes per sample.
  public var bytesPerPixel: Int { channelCount * bytesPerSample }

  /// Whether the last channel is alpha.
  public var hasAlpha: Bool { channelCount == 2 || channelCount == 4 }

  /// Whether the format has colour channels (as opposed to gray).
  public var isColor: Bool { channelCount >= 3 }

  /// The lower-case name used by the command line (`rgba8`, `gray16`, …).
  public var description: String {
    switch self {
    case .gray8: "gray8"
    case .grayAlpha8: "grayAlpha8"
    case .rgb8: "rgb8"
    case .rgba8: "rgba8"
    case .gray16: "gray16"
    case .grayAlpha16: "grayAlpha16"
    case .rgb16: "rgb16"
    case .rgba16: "rgba16"
    }
  }

  /// The format of a C layout code (`IMC_LAYOUT_*`), named rather than mirrored as a number.
  init?(layout: Int32) {
    switch layout {
    case Int32(IMC_LAYOUT_GRAY8): self = .gray8
    case Int32(IMC_LAYOUT_GRAYALPHA8): self = .grayAlpha8
    case Int32(IMC_LAYOUT_RGB8): self = .rgb8
    case Int32(IMC_LAYOUT_RGBA8): self = .rgba8
    case Int32(IMC_LAYOUT_GRAY16): self = .gray16
    case Int32(IMC_LAYOUT_GRAYALPHA16): self = .grayAlpha16
    case Int32(IMC_LAYOUT_RGB16): self = .rgb16
    case Int32(IMC_LAYOUT_RGBA16): self = .rgba16
    default: return nil
    }
  }

  /// The C layout code (`IMC_LAYOUT_*`) of this format.
  var layout: Int32 {
    switch self {
    case .gray8: Int32(IMC_LAYOUT_GRAY8)
    case .grayAlpha8: Int32(IMC_LAYOUT_GRAYALPHA8)
    case .rgb8: Int32(IMC_LAYOUT_RGB8)
    case .rgba8: Int32(IMC_LAYOUT_RGBA8)
    case .gray16: Int32(IMC_LAYOUT_GRAY16)
    case .grayAlpha16: Int32(IMC_LAYOUT_GRAYALPHA16)
    case .rgb16: Int32(IMC_LAYOUT_RGB16)
    case .rgba16: Int32(IMC_LAYOUT_RGBA16)
    }
  }
}
