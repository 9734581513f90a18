// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "imgfetch",
  products: [
    .library(name: "ImageCodecs", targets: ["ImageCodecs"]),
    .library(name: "ParseFetch", targets: ["ParseFetch"]),
    .executable(name: "imgfetch", targets: ["imgfetch"]),
  ],
  targets: [
    // System libraries, found through pkg-config.
    .systemLibrary(
      name: "CPNG", pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"])]),
    .systemLibrary(
      name: "CJPEG", pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"])]),
    // The only target that talks to libpng and libjpeg: every session and every setjmp lives here.
    .target(
      name: "CImageCodecs", dependencies: ["CPNG", "CJPEG"],
      cSettings: [.unsafeFlags(["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"])]),
    .target(name: "ImageCodecs", dependencies: ["CImageCodecs"]),
    .executableTarget(name: "imgfetch", dependencies: ["ImageCodecs"]),
    // Parse REST client, streamed downloads and the validated disk cache; Foundation only.
    .target(name: "ParseFetch"),
    .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs"]),
    .testTarget(name: "ParseFetchTests", dependencies: ["ParseFetch"]),
    .testTarget(name: "CLITests", dependencies: ["imgfetch"]),
  ],
  swiftLanguageModes: [.v6]
)
