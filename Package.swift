// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "imgfetch",
  products: [
    .library(name: "ImageCodecs", targets: ["ImageCodecs"]),
    .library(name: "ParseFetch", targets: ["ParseFetch"]),
    .library(name: "ImageFetch", targets: ["ImageFetch"]),
    .library(name: "Thumbnails", targets: ["Thumbnails"]),
    .executable(name: "imgfetch", targets: ["imgfetch"]),
    .executable(name: "imgfetch-fetch", targets: ["imgfetch-fetch"]),
  ],
  targets: [
    // System libraries, found through pkg-config.
    .systemLibrary(
      name: "CPNG", pkgConfig: "libpng",
      providers: [.apt(["libpng-dev"])]),
    .systemLibrary(
      name: "CJPEG", pkgConfig: "libjpeg",
      providers: [.apt(["libjpeg62-turbo-dev"])]),
    .systemLibrary(
      name: "CCurl", pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(
      name: "CZlib", pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]),
    // The only target that talks to libpng, libjpeg and zlib: every session and every setjmp lives here.
    .target(name: "CImageCodecs", dependencies: ["CPNG", "CJPEG", "CZlib"]),
    // The systems layer: open a regular file, file status, errno to message, atomic publish, and the
    // lock shared state sits behind (a pthread mutex, which ThreadSanitizer sees; see Locked.swift).
    // Glibc only (no Foundation), so every module and the codec-only executable can use it.
    .target(name: "SystemFiles"),
    .target(name: "ImageCodecs", dependencies: ["CImageCodecs", "SystemFiles"]),
    // Thumbnail planning, resampling kernels, orientation and cached thumbnail files.
    .target(name: "Thumbnails", dependencies: ["ImageCodecs", "SystemFiles"]),
    // The command line in two executables, so that commands without network start fast (issue 10.4):
    // `imgfetch` (ImgfetchCLI: parsing, printing, info/decode/verify, local files; no Foundation
    // networking, ICU or libcurl) execs `imgfetch-fetch` (ImgfetchNetworkCLI) for URLs, Parse and the cache.
    .target(
      name: "ImgfetchCLI",
      dependencies: ["ImageCodecs", "Thumbnails", "SystemFiles", "ImgfetchVersion", "CProcessSettings"]),
    .target(
      name: "ImgfetchNetworkCLI",
      dependencies: [
        "ImgfetchCLI", "ImgfetchHit", "ImageCodecs", "Thumbnails", "ImageFetch", "ParseFetch", "ParseEssentials",
        "SystemFiles", "CRestRequest", "CCurl",
      ]),
    // One GET through libcurl's C API: the warm hit's object request, without URLSession's set-up.
    // libcurl is dlopen'd on the first request (only curl's headers are needed to build), so
    // `imgfetch` links no libcurl and loads it only for a hit's request; no library product uses it.
    .target(name: "CRestRequest"),
    // The warm hit, Foundation-free (ParseEssentials, ImgfetchCLI's output): `imgfetch` serves a
    // single object's hit itself; imgfetch-fetch takes the run over on a miss (started beside the
    // attempt, or exec'd, with the resolved file), or at once for anything else.
    .target(
      name: "ImgfetchHit",
      dependencies: [
        "ImgfetchCLI", "ImageCodecs", "ParseEssentials", "Thumbnails", "SystemFiles", "ImgfetchVersion", "CRestRequest",
        "CHandoff",
      ]),
    // imgfetch-fetch started beside the hit's attempt and handed the run (with its standard
    // descriptors) on a miss: socket pair, SCM_RIGHTS, signals passed on (C macros).
    .target(name: "CHandoff"),
    // Process-wide malloc settings (mallopt), which only the executables apply (through
    // Imgfetch.startProcess, the one process set-up both main.swift files call).
    .target(name: "CProcessSettings"),
    .executableTarget(name: "imgfetch", dependencies: ["ImgfetchCLI", "ImgfetchHit"]),
    .executableTarget(name: "imgfetch-fetch", dependencies: ["ImgfetchNetworkCLI", "ImgfetchCLI", "ImgfetchHit"]),
    // Parse REST client, streamed downloads and the validated disk cache; Foundation only.
    .target(name: "ParseFetch", dependencies: ["ParseEssentials", "SystemFiles", "ImgfetchVersion"]),
    // What of Parse and the cache needs no Foundation networking or ICU (FoundationEssentials only):
    // endpoints, credential headers, a File column's JSON, cache names and the hit lookup. ParseFetch
    // builds on it, and so does the warm hit that `imgfetch` serves itself (ImgfetchHit).
    .target(name: "ParseEssentials", dependencies: ["SystemFiles"]),
    // The version, defined once: --version and the User-Agent of every request.
    .target(name: "ImgfetchVersion"),
    // What users call: a Parse object's (or a URL's) image, downloaded, validated by a full
    // decode, cached, and returned decoded.
    .target(name: "ImageFetch", dependencies: ["ImageCodecs", "ParseFetch", "Thumbnails", "SystemFiles"]),
    // Fixture paths, reference hashes and process helpers shared by the test targets.
    // SHA-256 in C for the reference-pixel hashes (fast enough at -O0 in debug builds), and the
    // posix_spawn that starts test children with no descriptor of the test process but 0-2.
    .target(name: "CFixtureSupport", path: "Tests/CFixtureSupport"),
    .target(name: "FixtureSupport", dependencies: ["CFixtureSupport"], path: "Tests/FixtureSupport"),
    .testTarget(name: "SystemFilesTests", dependencies: ["SystemFiles"]),
    .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "FixtureSupport"]),
    // The fixture Parse Server, nginx and scratch files for the fetch tests.
    .target(
      name: "ParseFixtureSupport", dependencies: ["ParseFetch", "FixtureSupport", "SystemFiles"],
      path: "Tests/ParseFixtureSupport"),
    .testTarget(name: "ParseFetchTests", dependencies: ["ParseFetch", "ParseFixtureSupport", "SystemFiles"]),
    .testTarget(
      name: "ImageFetchTests",
      dependencies: ["ImageFetch", "ImageCodecs", "ParseFixtureSupport", "Thumbnails", "SystemFiles"]),
    .testTarget(
      name: "CLITests",
      dependencies: [
        "ImgfetchCLI", "ImageCodecs", "Thumbnails", "imgfetch", "imgfetch-fetch", "FixtureSupport",
        "ParseFixtureSupport",
      ]),
    .testTarget(
      name: "ThumbnailsTests", dependencies: ["Thumbnails", "ImageCodecs", "imgfetch", "FixtureSupport", "SystemFiles"]),
    // One verdict per file on every path it can take (issue 21): decoders, thumbnails, downloads.
    .testTarget(
      name: "VerdictTests",
      dependencies: [
        "ImageCodecs", "Thumbnails", "ImageFetch", "ParseFetch", "FixtureSupport", "ParseFixtureSupport", "imgfetch",
      ]),
    // The decode-throughput harness (benchmarks/README.md): imgbench, the C ceiling it runs beside
    // imgfetch's decoders in the same process (same -O2 as CImageCodecs), and the CI smoke test.
    .target(name: "BenchBaseline", dependencies: ["CPNG", "CJPEG"], path: "benchmarks/cbaseline"),
    .executableTarget(
      name: "imgbench", dependencies: ["ImageCodecs", "Thumbnails", "BenchBaseline"], path: "benchmarks/imgbench"),
    .testTarget(
      name: "BenchmarkSmokeTests", dependencies: ["imgbench", "FixtureSupport"],
      path: "benchmarks/BenchmarkSmokeTests"),
  ],
  swiftLanguageModes: [.v6]
)
