import ImageCodecs
import Testing

@testable import Thumbnails

@Suite(.timeLimit(.minutes(30))) struct ThumbnailPlanTests {
  func plan(
    _ width: Int, _ height: Int, _ size: ThumbnailSize, fit: ThumbnailFit = .inside,
    format: ImageFormat = .jpeg,
    orientation: ExifOrientation = .up, upscale: Bool = false, rotate: Bool = true
  ) -> ThumbnailPlan {
    ThumbnailPlan(
      sourceWidth: width, sourceHeight: height, orientation: orientation, format: format,
      options: ThumbnailOptions(
        size: size, fit: fit, allowsUpscaling: upscale, appliesOrientation: rotate))
  }

  @Test func longestSideKeepsTheAspectRatioRoundingTheShortSide() {
    let landscape = plan(1800, 1200, .longestSide(256))
    #expect((landscape.width, landscape.height) == (256, 171))  // 170.67 rounds up
    let portrait = plan(1200, 1800, .longestSide(256))
    #expect((portrait.width, portrait.height) == (171, 256))
    let square = plan(1000, 1000, .longestSide(256))
    #expect((square.width, square.height) == (256, 256))
  }

  @Test func jpegShrinksOnLoadLeavingAtLeastAFactorOfTwo() {
    // 6336 / 256 = 24.75 >= 16: 1/8, decoded 792 wide, the filter still reduces 3.09x.
    let huge = plan(6336, 4752, .longestSide(256))
    #expect(huge.jpegScale == .eighth)
    #expect((huge.horizontal.decoded, huge.vertical.decoded) == (792, 594))
    #expect(huge.horizontal.boxFactor == 1 && huge.vertical.boxFactor == 1)
    #expect(huge.horizontal.reduceFactor >= 2)
    // 3264 / 256 = 12.75: 1/4 (1/8 would leave only 1.59).
    let medium = plan(3264, 2448, .longestSide(256))
    #expect(medium.jpegScale == .quarter)
    #expect(medium.horizontal.decoded == 816)
    // 1280 / 256 = 5: 1/2. 900 / 256 = 3.5: no scaling.
    #expect(plan(1280, 1024, .longestSide(256)).jpegScale == .half)
    #expect(plan(900, 600, .longestSide(256)).jpegScale == .full)
    // Exactly 16x and 15.9x.
    #expect(plan(4096, 4096, .longestSide(256)).jpegScale == .eighth)
    #expect(plan(4095, 4095, .longestSide(256)).jpegScale == .quarter)
  }

  @Test func theLessShrunkAxisDecidesTheDCTScale() {
    // A cover crop of a wide image: the height needs 16x but the width only 4x.
    let wide = plan(4096, 1024, .box(width: 256, height: 64), fit: .inside)
    #expect(wide.jpegScale == .eighth)
    let cover = plan(8192, 1024, .box(width: 256, height: 256), fit: .cover)
    #expect(cover.jpegScale == .half)  // height: 1024 / 256 = 4
    #expect(cover.vertical.reduceFactor >= 2)
  }

  @Test func pngIsNeverScaledOnLoadButBoxShrunkByAnInteger() {
    let png = plan(2560, 1600, .longestSide(256), format: .png)
    #expect(png.jpegScale == .full)
    #expect(png.horizontal.decoded == 2560)
    #expect(png.horizontal.boxFactor == 5)  // 2560 / 256 = 10: box 5, filter 2
    #expect(png.horizontal.boxed == 512)
    #expect(png.horizontal.reduceFactor == 2)
    #expect((png.width, png.height) == (256, 160))
  }

  @Test func theLastBoxMayBePartialAndTheFilterSpansTheExactExtent() {
    let png = plan(1001, 1001, .longestSide(100), format: .png)
    #expect(png.horizontal.boxFactor == 5)
    #expect(png.horizontal.boxed == 201)  // 200 whole boxes and one of a single pixel
    #expect(png.horizontal.boxedExtent == 200.2)
  }

  @Test func aBoxWithInsideFitsTheWholeImage() {
    let wide = plan(2000, 1000, .box(width: 320, height: 200))
    #expect((wide.width, wide.height) == (320, 160))
    let tall = plan(1000, 2000, .box(width: 320, height: 200))
    #expect((tall.width, tall.height) == (100, 200))
  }

  @Test func aBoxWithCoverFillsTheBoxAndCropsTheCentre() {
    let wide = plan(2000, 1000, .box(width: 320, height: 200), fit: .cover)
    #expect((wide.width, wide.height) == (320, 200))
    #expect(wide.horizontal.scaled == 400)
    #expect(wide.horizontal.cropOffset == 40)
    #expect(wide.vertical.scaled == 200 && wide.vertical.cropOffset == 0)
  }

  @Test func noAxisGrowsUnlessUpscalingIsAllowed() {
    let small = plan(100, 50, .longestSide(256))
    #expect((small.width, small.height) == (100, 50))
    #expect(small.jpegScale == .full && small.horizontal.boxFactor == 1)
    let allowed = plan(100, 50, .longestSide(256), upscale: true)
    #expect((allowed.width, allowed.height) == (256, 128))
    let boxed = plan(100, 50, .box(width: 320, height: 200))
    #expect((boxed.width, boxed.height) == (100, 50))
    // Cover without upscaling keeps the size and crops what exceeds the box.
    let cover = plan(400, 100, .box(width: 200, height: 200), fit: .cover)
    #expect((cover.width, cover.height) == (200, 100))
    #expect(cover.horizontal.cropOffset == 100)
  }

  @Test(arguments: [(1, 1), (1, 5000), (5000, 1), (3, 7), (7, 3), (2, 65_000)])
  func noAxisEverReachesZero(size: (Int, Int)) {
    for request in [
      ThumbnailSize.longestSide(1), .longestSide(256), .box(width: 1, height: 1),
      .box(width: 64, height: 9),
    ] {
      for fit in ThumbnailFit.allCases {
        let p = plan(size.0, size.1, request, fit: fit)
        #expect(p.width >= 1 && p.height >= 1)
        #expect(p.horizontal.decoded >= 1 && p.vertical.decoded >= 1)
        #expect(p.horizontal.boxed >= 1 && p.vertical.boxed >= 1)
        #expect(
          p.horizontal.output <= p.horizontal.scaled && p.vertical.output <= p.vertical.scaled)
        #expect(p.horizontal.cropOffset >= 0 && p.vertical.cropOffset >= 0)
      }
    }
  }

  @Test func oneByNSourcesKeepTheirThinAxis() {
    let column = plan(1, 5000, .longestSide(256))
    #expect((column.width, column.height) == (1, 256))
    #expect(column.jpegScale == .full)  // the width cannot shrink, so no DCT scaling
    let row = plan(5000, 1, .longestSide(256), format: .png)
    #expect((row.width, row.height) == (256, 1))
    #expect(row.horizontal.boxFactor == 9 && row.vertical.boxFactor == 1)
  }

  @Test func theRequestAppliesToTheUprightImage() {
    // Stored 1800x1200 but orientation 6 (rotate 90° clockwise): upright 1200x1800.
    let rotated = plan(1800, 1200, .box(width: 200, height: 100), orientation: .right)
    #expect((rotated.width, rotated.height) == (67, 100))
    #expect((rotated.horizontal.output, rotated.vertical.output) == (100, 67))  // stored axes
    #expect(rotated.orientation == .right)
    let ignored = plan(
      1800, 1200, .box(width: 200, height: 100), orientation: .right, rotate: false)
    #expect((ignored.width, ignored.height) == (150, 100))
    #expect(ignored.orientation == .up)
  }

  /// `256x` and `x256` (issue 32): one side given, the other by the aspect ratio, never enlarged.
  @Test func aWidthOrAHeightAloneKeepsTheAspectRatio() {
    let wide = ThumbnailPlan.target(upright: (1800, 1200), options: ThumbnailOptions(size: .width(300)))
    #expect(wide.scaled == (300, 200) && wide.kept == (300, 200))
    let tall = ThumbnailPlan.target(upright: (1800, 1200), options: ThumbnailOptions(size: .height(300)))
    #expect(tall.scaled == (450, 300))
    let small = ThumbnailPlan.target(upright: (90, 60), options: ThumbnailOptions(size: .width(300)))
    #expect(small.scaled == (90, 60), "not enlarged")
    #expect(ThumbnailNaming.path(forSource: "a.jpg", size: .width(300), fit: .cover, format: .jpeg) == "a.jpg.thumb-300x.jpg")
    #expect(ThumbnailNaming.isThumbnailName("a.jpg.thumb-x300.png") && ThumbnailNaming.isThumbnailName("a.jpg.thumb-300x.jpg"))
    #expect(!ThumbnailNaming.isThumbnailName("a.jpg.thumb-x.png"))
  }

  @Test func sizesParseAsTheCommandLineWritesThem() {
    #expect(ThumbnailSize(parsing: "256") == .longestSide(256))
    #expect(ThumbnailSize(parsing: "320x200") == .box(width: 320, height: 200))
    #expect(ThumbnailSize(parsing: "320x") == .width(320))
    #expect(ThumbnailSize(parsing: "x200") == .height(200))
    for bad in ["", "0", "x", "xx", "0x", "x0", "x+5", "-5", "1x2x3", "65501", "65501x", "12a", "x12a"] {
      #expect(ThumbnailSize(parsing: bad) == nil, "\(bad)")
    }
  }

  /// WebP (issue 31): an opaque still WebP shrinks on load as a JPEG does (libwebp's scaled output,
  /// at the same eighths); a WebP with alpha or animated, like a PNG, does not; without the header's
  /// word only a JPEG does.
  @Test func anOpaqueStillWebPShrinksOnLoadLikeAJPEG() {
    let options = ThumbnailOptions(size: .longestSide(256))
    let jpeg = ThumbnailPlan(sourceWidth: 6336, sourceHeight: 4752, orientation: .up, format: .jpeg, options: options)
    let webp = ThumbnailPlan(
      sourceWidth: 6336, sourceHeight: 4752, orientation: .up, format: .webp, options: options, shrinksOnLoad: true)
    #expect(webp == jpeg && webp.jpegScale == .eighth && webp.horizontal.decoded == 792)
    let withAlpha = ThumbnailPlan(
      sourceWidth: 6336, sourceHeight: 4752, orientation: .up, format: .webp, options: options, shrinksOnLoad: false)
    #expect(withAlpha.jpegScale == .full && withAlpha.horizontal.decoded == 6336)
    let unsaid = ThumbnailPlan(sourceWidth: 6336, sourceHeight: 4752, orientation: .up, format: .webp, options: options)
    #expect(unsaid.jpegScale == .full)
  }
}
