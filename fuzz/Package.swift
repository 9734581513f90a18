// swift-tools-version:6.0
// libFuzzer targets for imgfetch's decoders. A separate package so that an ordinary `swift build`
// of the project never tries to link them without libFuzzer's main. Run with scripts/fuzz.
import PackageDescription

let package = Package(
  name: "imgfetch-fuzz",
  dependencies: [.package(name: "imgfetch", path: "..")],
  targets: [
    .executableTarget(name: "FuzzPNG", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
    .executableTarget(name: "FuzzJPEG", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
    .executableTarget(name: "FuzzProbe", dependencies: [.product(name: "ImageCodecs", package: "imgfetch")]),
  ],
  swiftLanguageModes: [.v6]
)
