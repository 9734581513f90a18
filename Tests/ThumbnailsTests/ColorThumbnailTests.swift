import FixtureSupport
import Foundation
import ImageCodecs
import Testing
import Thumbnails

/// Thumbnails of wide-gamut, CMYK and gray photos look like the photo in a colour-managed viewer
/// (Fixtures/color: one photo in every space, in every container).
@Suite(.timeLimit(.minutes(30))) struct ColorThumbnailTests {
  /// Every colour photo and container: the profile in JPEG APP2 and PNG iCCP, gAMA/cHRM PNGs.
  static let photos = [
    "display-p3.jpg", "display-p3.png", "adobe-rgb.jpg", "adobe-rgb.png", "prophoto.jpg", "prophoto.png",
    "cmyk.jpg", "adobe-rgb-gama-chrm.png",
  ]
  static let grayPhotos = ["gray-gamma18.jpg", "gray-gamma18.png", "gray-gamma18-gama.png"]

  /// The bound on the mean ΔE*ab (CIE76, 12x8 cells) of a thumbnail read back as a viewer reads it,
  /// against the photo. vipsthumbnail 8.14 --export-profile srgb, at the same size and JPEG quality 85,
  /// reaches 0.55-0.99 on the RGB files here and imgfetch 0.72-1.05 (benchmarks/README.md, "Colour
  /// fidelity"); 1.5 leaves room for JPEG noise and is a third of what dropping the profile costs
  /// (4.5-16 on these files).
  static let bound = 1.5

  static func thumbnail(of name: String, in directory: String, options: ThumbnailOptions) throws -> ThumbnailResult {
    let source = directory + "/" + name
    try FileManager.default.copyItem(atPath: ViewedImage.colorFixture(name), toPath: source)
    return try Thumbnailer(options: options).makeThumbnail(forFileAt: source)
  }

  @Test(arguments: photos)
  func aThumbnailIsSRGBAndLooksLikeThePhoto(name: String) throws {
    try TestImages.withTemporaryDirectory { directory in
      let result = try Self.thumbnail(of: name, in: directory, options: ThumbnailOptions(size: .longestSide(96)))
      #expect(result.colorNote == nil)
      let metadata = try ImageMetadata.read(contentsOf: result.path)
      #expect(metadata.iccProfile == nil, "an sRGB thumbnail carries no profile")
      let difference = ColorDifference.meanDeltaE(try ViewedImage.reference(), try ViewedImage.picture(at: result.path))
      #expect(difference < Self.bound, "\(name): mean ΔE \(difference)")
      // What a viewer would see if the numbers were taken as sRGB: further off (the defect this fixes;
      // the photo is not very saturated, so the gap is smallest for Display P3, largest for ProPhoto).
      guard !name.hasPrefix("cmyk") else { return }
      var unmanaged = ThumbnailOptions(size: .longestSide(96))
      unmanaged.colorSpace = .source
      let kept = try Thumbnailer(options: unmanaged).image(contentsOf: directory + "/" + name)
      var asSRGB = kept
      asSRGB.colorSpace = .sRGB
      let wrong = ColorDifference.meanDeltaE(try ViewedImage.reference(), ViewedImage.picture(of: asSRGB))
      #expect(wrong > difference + 0.5, "\(name): unmanaged ΔE \(wrong), managed \(difference)")
    }
  }

  @Test(arguments: grayPhotos)
  func aGrayThumbnailHasThePhotosLightness(name: String) throws {
    try TestImages.withTemporaryDirectory { directory in
      let result = try Self.thumbnail(of: name, in: directory, options: ThumbnailOptions(size: .longestSide(96)))
      let viewed = try ViewedImage.picture(at: result.path)
      #expect(viewed.channels == 1)
      let difference = ColorDifference.meanDeltaE(try ViewedImage.reference(), viewed, lightnessOnly: true)
      #expect(difference < Self.bound, "\(name): mean ΔL \(difference)")
    }
  }

  @Test(arguments: ["display-p3.jpg", "prophoto.png", "gray-gamma18.png", "adobe-rgb-gama-chrm.png"])
  func keepingTheSourceSpaceEmbedsItsProfile(name: String) throws {
    try TestImages.withTemporaryDirectory { directory in
      var options = ThumbnailOptions(size: .longestSide(96))
      options.colorSpace = .source
      let kept = try Self.thumbnail(of: name, in: directory, options: options)
      let source = try ImageDecoder.probe(contentsOf: directory + "/" + name).colorSpace
      let metadata = try ImageMetadata.read(contentsOf: kept.path)
      #expect(metadata.colorSpace?.origin == .iccProfile)
      if let profile = source.iccProfile { #expect(metadata.iccProfile == profile) }
      #expect(ThumbnailStamp.read(fromFileAt: kept.path)?.key.hasSuffix("color=source") == true)
      // Read through its embedded profile, it still looks like the photo.
      let difference = ColorDifference.meanDeltaE(
        try ViewedImage.reference(), try ViewedImage.picture(at: kept.path), lightnessOnly: name.hasPrefix("gray"))
      #expect(difference < Self.bound, "\(name): mean ΔE \(difference)")
      // The choice is in the stamp: asking for sRGB again rebuilds, then reuses.
      let thumbnailer = Thumbnailer(options: ThumbnailOptions(size: .longestSide(96)))
      #expect(try thumbnailer.makeThumbnail(forFileAt: directory + "/" + name).reused == false)
      #expect(try thumbnailer.makeThumbnail(forFileAt: directory + "/" + name).reused == true)
      #expect(try ImageMetadata.read(contentsOf: kept.path).iccProfile == nil)
    }
  }

  @Test func aCMYKPhotoConvertsThroughItsProfile() throws {
    try TestImages.withTemporaryDirectory { directory in
      let options = ThumbnailOptions(size: .longestSide(96))
      let managed = try Self.thumbnail(of: "cmyk.jpg", in: directory, options: options)
      let plain = try Self.thumbnail(of: "cmyk-no-profile.jpg", in: directory, options: options)
      let reference = try ViewedImage.reference()
      let through = ColorDifference.meanDeltaE(reference, try ViewedImage.picture(at: managed.path))
      let naive = ColorDifference.meanDeltaE(reference, try ViewedImage.picture(at: plain.path))
      #expect(through < Self.bound)
      #expect(naive > 2 * through, "without its profile a CMYK JPEG gets the plain formula")
    }
  }

  @Test(arguments: ["display-p3.jpg", "display-p3.png"])
  func aWebPThumbnailIsSRGBAndLooksLikeThePhoto(name: String) throws {
    try TestImages.withTemporaryDirectory { directory in
      var options = ThumbnailOptions(size: .longestSide(96))
      options.format = .webp(quality: 85)
      let result = try Self.thumbnail(of: name, in: directory, options: options)
      #expect(result.path.hasSuffix(".thumb-96.webp") && result.format == .webp)
      let difference = ColorDifference.meanDeltaE(try ViewedImage.reference(), try ViewedImage.picture(at: result.path))
      #expect(difference < Self.bound, "\(name): mean ΔE \(difference)")
    }
  }
}
