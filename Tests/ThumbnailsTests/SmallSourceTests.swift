import Foundation
import ImageCodecs
import Testing
import Thumbnails

@Suite(.timeLimit(.minutes(30))) struct SmallSourceTests {
  static let sizes = [(1, 1), (1, 9), (9, 1), (3, 7), (7, 3), (1, 600), (600, 1)]

  @Test(arguments: sizes)
  func tinyPNGsKeepTheirSizeAndPixels(size: (Int, Int)) throws {
    let source = TestImages.pattern(width: size.0, height: size.1, format: .rgba8)
    let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(256)))
    let bytes = try ImageEncoder.encode(source, as: .png())
    let thumbnail = try thumbnailer.image(from: bytes)
    if max(size.0, size.1) <= 256 {
      #expect((thumbnail.width, thumbnail.height) == size)
      #expect(thumbnail.bytes == source.bytes)
    } else {
      #expect(max(thumbnail.width, thumbnail.height) == 256 && min(thumbnail.width, thumbnail.height) == 1)
    }
  }

  @Test(arguments: sizes)
  func tinyJPEGsGiveAThumbnailWithNoEmptyAxis(size: (Int, Int)) throws {
    let source = TestImages.pattern(width: size.0, height: size.1)
    let bytes = try ImageEncoder.encode(source, as: .jpeg(quality: 95))
    for request in [ThumbnailSize.longestSide(2), .longestSide(256), .box(width: 5, height: 5)] {
      for fit in ThumbnailFit.allCases {
        let options = ThumbnailOptions(size: request, fit: fit, allowsUpscaling: true)
        let thumbnail = try Thumbnailer(options: options).image(from: bytes)
        #expect(thumbnail.width >= 1 && thumbnail.height >= 1)
        #expect(thumbnail.pixelFormat == .rgb8)
      }
    }
  }

  @Test func upscalingATinyImageWhenAskedFillsTheRequest() throws {
    let source = TestImages.flat(width: 3, height: 7, pixel: [10, 120, 240], format: .rgb8)
    let bytes = try ImageEncoder.encode(source, as: .png())
    let options = ThumbnailOptions(size: .longestSide(70), allowsUpscaling: true)
    let thumbnail = try Thumbnailer(options: options).image(from: bytes)
    #expect((thumbnail.width, thumbnail.height) == (30, 70))
    #expect(Set(thumbnail.bytes) == [10, 120, 240])
  }

  @Test func upscalingPastThePixelLimitIsRefusedBeforeDecoding() throws {
    let bytes = try ImageEncoder.encode(TestImages.flat(width: 3, height: 7, pixel: [9], format: .gray8), as: .png())
    let options = ThumbnailOptions(size: .longestSide(65_000), allowsUpscaling: true)
    #expect {
      try Thumbnailer(options: options).image(from: bytes)
    } throws: { error in
      guard case .invalidOptions(let message) = error as? ThumbnailError else { return false }
      return message.contains("27857x65000") && message.contains("pixel limit")
    }
    let invalid = ThumbnailOptions(size: .longestSide(0))
    #expect(throws: ThumbnailError.self) { try Thumbnailer(options: invalid).image(from: bytes) }
  }

  @Test(arguments: [PixelFormat.gray8, .grayAlpha8, .rgb8, .rgba8])
  func everyPixelFormatKeepsItsChannels(format: PixelFormat) throws {
    let source = TestImages.pattern(width: 300, height: 200, format: format)
    let bytes = try ImageEncoder.encode(source, as: .png())
    let thumbnail = try Thumbnailer(options: ThumbnailOptions(size: .longestSide(64))).image(from: bytes)
    #expect(thumbnail.pixelFormat == format)
    #expect((thumbnail.width, thumbnail.height) == (64, 43))
  }
}
