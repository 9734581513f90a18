import FixtureSupport
import ImageCodecs
import Testing
import Thumbnails

@Suite(.timeLimit(.minutes(30))) struct OrientationTests {
  static let exifFixtures = [
    "Landscape_0.jpg", "Landscape_1.jpg", "Landscape_3.jpg", "Landscape_5.jpg", "Landscape_7.jpg",
    "Portrait_2.jpg", "Portrait_4.jpg", "Portrait_6.jpg", "Portrait_8.jpg", "right-orientation.jpeg",
  ]

  /// The reference: a full decode, area-averaged to the thumbnail's size and turned upright
  /// exactly. (Area averaging commutes with flips and quarter turns, so this equals turning the
  /// full image first; turning the small image is just quicker.)
  func reference(_ name: String, width: Int, height: Int) throws -> Image {
    let stored = try ImageDecoder.decode(contentsOf: Fixtures.image(name))
    let swapped = stored.orientation.swapsDimensions
    var small = ImageMetrics.areaDownscale(stored, width: swapped ? height : width, height: swapped ? width : height)
    small.orientation = stored.orientation
    return try small.oriented()
  }

  @Test(arguments: exifFixtures)
  func everyExifOrientationGivesAnUprightThumbnail(name: String) throws {
    let thumbnail = try Thumbnailer(options: ThumbnailOptions(size: .longestSide(256))).image(
      contentsOf: Fixtures.image(name))
    let header = try ImageDecoder.probe(contentsOf: Fixtures.image(name))
    #expect(max(thumbnail.width, thumbnail.height) == 256)
    #expect((thumbnail.width > thumbnail.height) == (header.orientedWidth > header.orientedHeight))
    #expect(thumbnail.orientation == .up)
    let expected = try reference(name, width: thumbnail.width, height: thumbnail.height)
    #expect(ImageMetrics.psnr(thumbnail, expected) > 30)
  }

  @Test(arguments: exifFixtures.filter { !$0.hasPrefix("Landscape_0") && !$0.hasPrefix("Landscape_1") })
  func withoutRotationTheStoredPixelsAreKept(name: String) throws {
    var options = ThumbnailOptions(size: .longestSide(256))
    options.appliesOrientation = false
    let thumbnail = try Thumbnailer(options: options).image(contentsOf: Fixtures.image(name))
    let header = try ImageDecoder.probe(contentsOf: Fixtures.image(name))
    #expect((thumbnail.width > thumbnail.height) == (header.width > header.height))
    let stored = try ImageDecoder.decode(contentsOf: Fixtures.image(name))
    let asStored = ImageMetrics.areaDownscale(stored, width: thumbnail.width, height: thumbnail.height)
    #expect(ImageMetrics.psnr(thumbnail, asStored) > 30)
    // And it is visibly not the upright picture (the comparison above would catch a wrong turn).
    if !header.orientation.swapsDimensions {
      let upright = try reference(name, width: thumbnail.width, height: thumbnail.height)
      #expect(ImageMetrics.psnr(thumbnail, upright) < 20)
    }
  }

  @Test func allEightLandscapeOrientationsShowTheSamePicture() throws {
    let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .box(width: 120, height: 120)))
    let upright = try thumbnailer.image(contentsOf: Fixtures.image("Landscape_1.jpg"))
    for name in ["Landscape_0.jpg", "Landscape_3.jpg", "Landscape_5.jpg", "Landscape_7.jpg"] {
      let other = try thumbnailer.image(contentsOf: Fixtures.image(name))
      #expect((other.width, other.height) == (upright.width, upright.height))
      #expect(ImageMetrics.psnr(other, upright) > 30, "\(name)")
    }
  }
}
