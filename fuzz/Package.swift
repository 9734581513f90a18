// swift-tools-version:6.0
// libFuzzer targets for imgfetch's decoders (one call and incremental), thumbnailer and Parse
// response parsing. A separate package so that an ordinary `swift build` of the project never
// tries to link them without libFuzzer's main. Run with scripts/fuzz.
import PackageDescription

let package = Package(
  name: "imgfetch-fuzz",
  dependencies: [.package(name: "imgfetch", path: "..")],
  targets: [
    .executableTarget(name: "FuzzPNG", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
    .executableTarget(name: "FuzzJPEG", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
    .executableTarget(name: "FuzzProbe", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
    .executableTarget(
      name: "FuzzThumbnail",
      dependencies: [
        .product(name: "ImageCodecs", package: "imgfetch"), .product(name: "Thumbnails", package: "imgfetch"),
      ]),
    .executableTarget(name: "FuzzStreaming", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
    // What the differential targets (FuzzJPEGEngine, FuzzPNGRows) share: outcomes and a stream in two pieces.
    .target(name: "FuzzSupport", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
    .executableTarget(
      name: "FuzzJPEGEngine", dependencies: ["FuzzSupport", .product(name: "ImageCodecs", package: "imgfetch")]),
    // The JPEG engine against libjpeg on legal baseline and progressive files its own encoder makes.
    .executableTarget(
      name: "FuzzJPEGStructure",
      dependencies: [
        "FuzzSupport", .product(name: "ImageCodecs", package: "imgfetch"),
        .product(name: "Thumbnails", package: "imgfetch"),
      ]),
    .executableTarget(
      name: "FuzzPNGRows", dependencies: ["FuzzSupport", .product(name: "ImageCodecs", package: "imgfetch")]),
    // WebP on every path (memory, file, validation, stream in pieces, scaled): one verdict, one picture.
    .executableTarget(
      name: "FuzzWebP", dependencies: ["FuzzSupport", .product(name: "ImageCodecs", package: "imgfetch")]),
    // GIF on every path (memory, file, validation, stream in pieces; never scaled): one verdict, one picture.
    .executableTarget(
      name: "FuzzGIF", dependencies: ["FuzzSupport", .product(name: "ImageCodecs", package: "imgfetch")]),
    // HEIC and AVIF (libheif) on every path (memory, file, validation, stream in pieces).
    .executableTarget(
      name: "FuzzHEIF", dependencies: ["FuzzSupport", .product(name: "ImageCodecs", package: "imgfetch")]),
    // imgfetch's own inflater against zlib's raw inflate, directly on raw DEFLATE data.
    .executableTarget(name: "FuzzInflate", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
    // The resampler's inner loops (CodecEngines/Resample) against the plain arithmetic.
    .executableTarget(name: "FuzzResample", dependencies: [.product(name: "Thumbnails", package: "imgfetch")]),
    .executableTarget(name: "FuzzParseJSON", dependencies: [.product(name: "ParseFetch", package: "imgfetch")]),
    // ICC profiles from the input in real JPEGs (RGB, gray, CMYK): lcms2's judgement and transforms.
    .executableTarget(name: "FuzzColor", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
  ],
  swiftLanguageModes: [.v6]
)
