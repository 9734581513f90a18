import ImageCodecs
import Thumbnails

/// libFuzzer entry point: whatever the decoders accept goes through the thumbnail pipeline
/// (plan, shrink-on-load, box shrink, Lanczos3 or bilinear reduce, orientation) at one of a few
/// sizes chosen by the input's last byte, including a cover fit and upscaling, under small caps
/// (64 Ki pixels, 64 JPEG scans); the plan's arithmetic also runs on extreme source sizes taken
/// from the input's first bytes, for every request.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzThumbnail(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let limits = DecodeLimits(maxPixels: 1 << 16, maxJPEGScans: 64)
  let requests: [ThumbnailOptions] = [
    ThumbnailOptions(size: .longestSide(64), limits: limits),
    ThumbnailOptions(size: .longestSide(1), filter: .bilinear, limits: limits),
    ThumbnailOptions(size: .box(width: 17, height: 5), fit: .cover, limits: limits),
    ThumbnailOptions(size: .box(width: 300, height: 3), allowsUpscaling: true, appliesOrientation: false, limits: limits),
  ]
  if let image = try? Thumbnailer(options: requests[Int(bytes.last ?? 0) % requests.count]).image(from: bytes) {
    precondition(image.width >= 1 && image.height >= 1)
    precondition(image.width <= 300 && image.height <= 300)
  }
  // The plan alone, on source sizes no decoder would accept.
  if size >= 5 {
    let width = Int(bytes[0]) << 16 | Int(bytes[1]) << 8 | Int(bytes[2])
    let height = Int(bytes[3]) << 8 | Int(bytes[4])
    let orientation = ExifOrientation(exifValue: Int(bytes[0] % 9))
    for options in requests {
      for format in [ImageFormat.jpeg, .png] {
        let plan = ThumbnailPlan(
          sourceWidth: width, sourceHeight: height, orientation: orientation, format: format, options: options)
        precondition(plan.width >= 1 && plan.height >= 1)
      }
    }
  }
  return 0
}
