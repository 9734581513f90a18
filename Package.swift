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
      name: "CZlib", pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]),
    // The codec layer in C, in layers that call only downward (scripts/check-c-layers proves it):
    // the core (status, limits, sources, the row queue); engines that include no library header;
    // adapters for libpng, libjpeg-turbo and zlib through their public API only; the front ends.
    .target(name: "CCodecCore", path: "Sources/CodecCore"),
    .target(name: "CInflateEngine", path: "Sources/CodecEngines/Inflate"),
    .target(name: "CPNGRowEngine", dependencies: ["CCodecCore", "CInflateEngine"], path: "Sources/CodecEngines/PNGRows"),
    .target(name: "CJPEGEngine", path: "Sources/CodecEngines/JPEG"),
    // The resampler's inner loops (weighted sums of lines), which Thumbnails' resampler calls.
    .target(name: "CResampleEngine", path: "Sources/CodecEngines/Resample"),
    .target(
      name: "CLibPNGAdapter", dependencies: ["CCodecCore", "CPNGRowEngine", "CPNG"], path: "Sources/CodecAdapters/LibPNG"),
    .target(
      name: "CLibJPEGAdapter", dependencies: ["CCodecCore", "CJPEGEngine", "CJPEG"],
      path: "Sources/CodecAdapters/LibJPEG"),
    .target(name: "CZlibAdapter", dependencies: ["CInflateEngine", "CZlib"], path: "Sources/CodecAdapters/Zlib"),
    // lcms2 (colour profiles and transforms) and libwebp (WebP files), likewise: public API only,
    // symbols prefixed imc_, nothing printed. ImageCodecs calls them directly (they decode nothing).
    // lcms2 is opened with dlopen by the first colour conversion (only its headers are needed to
    // build: Debian's liblcms2-dev), so a process that converts no colour never loads it.
    .systemLibrary(
      name: "CWebP", pkgConfig: "libwebp",
      providers: [.apt(["libwebp-dev"])]),
    // libwebpdemux (the same Debian package): animations, through WebPAnimDecoder.
    .systemLibrary(
      name: "CWebPDemux", pkgConfig: "libwebpdemux",
      providers: [.apt(["libwebp-dev"])]),
    .target(name: "CLCMS2Adapter", dependencies: ["CCodecCore"], path: "Sources/CodecAdapters/LCMS2"),
    // libwebp decodes WebP files too: the format table's WebP adapter (still images through its
    // incremental decoder, animations through libwebpdemux) lives here, over the core.
    .target(
      name: "CLibWebPAdapter", dependencies: ["CCodecCore", "CWebP", "CWebPDemux"],
      path: "Sources/CodecAdapters/LibWebP",
      linkerSettings: [.linkedLibrary("webpmux")]),
    // giflib (GIF files): Debian's libgif-dev ships no pkg-config file, so the module map names the
    // library and its header is found in the default search path (scripts/install-deps installs it).
    .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
    // The format table's GIF adapter, a whole-file format over the core (imc_whole.h).
    // (A C target gets no link from a module map, so the adapter names the library too.)
    .target(
      name: "CLibGIFAdapter", dependencies: ["CCodecCore", "CGIF"], path: "Sources/CodecAdapters/GIFLib",
      linkerSettings: [.linkedLibrary("gif")]),
    // libheif (HEIC and AVIF files), opened with dlopen by the first HEIF decode (only its headers
    // are needed to build: Debian's libheif-dev), over the core's whole-file decode.
    .target(name: "CLibHeifAdapter", dependencies: ["CCodecCore"], path: "Sources/CodecAdapters/LibHeif"),
    // The front ends (pull, push, the format table of PNG, JPEG, WebP, GIF, HEIC and AVIF): the C
    // module Swift's ImageCodecs imports.
    .target(
      name: "CImageCodecs",
      dependencies: [
        "CCodecCore", "CLibPNGAdapter", "CLibJPEGAdapter", "CLibWebPAdapter", "CLibGIFAdapter", "CLibHeifAdapter",
        "CZlibAdapter",
        "CJPEGEngine",
        "CPNGRowEngine",
      ]),
    // The systems layer, the one home of system calls: regular files (read, write, append), file
    // status, errno to message, atomic publish, directories, file locks, the standard streams, the
    // SIGINT/SIGTERM handler, the process environment, and the lock shared state sits behind (a
    // pthread mutex, which ThreadSanitizer sees; see Locked.swift). Glibc only (no Foundation).
    .target(name: "SystemFiles"),
    .target(name: "ImageCodecs", dependencies: ["CImageCodecs", "CLCMS2Adapter", "CLibWebPAdapter", "SystemFiles"]),
    // Thumbnail planning, resampling kernels, orientation and cached thumbnail files.
    .target(name: "Thumbnails", dependencies: ["ImageCodecs", "CResampleEngine", "SystemFiles"]),
    // libcurl's C API, loaded with dlopen on the first request (only curl's headers are needed to
    // build: Debian's libcurl4-openssl-dev): the package's one HTTP stack, behind ParseFetch's
    // HTTPExchange, so that a process that makes no request never loads libcurl.
    .target(name: "CCurl"),
    // The version, defined once: --version and the User-Agent of every request.
    .target(name: "ImgfetchVersion"),
    // Parse REST client, the HTTP client (libcurl), streamed downloads and the validated disk cache;
    // FoundationEssentials only (no Foundation networking, no ICU).
    .target(name: "ParseFetch", dependencies: ["CCurl", "SystemFiles", "ImgfetchVersion"]),
    // What users call: a Parse object's (or a URL's) image, downloaded, validated by a full
    // decode, cached, and returned decoded.
    .target(name: "ImageFetch", dependencies: ["ImageCodecs", "ParseFetch", "Thumbnails", "SystemFiles"]),
    // The command line: parsing against the one option table, printing, exit codes, progress, and the
    // commands (local files, fetches through ImageFetch, the cache). One executable does every
    // command; those without network load neither libcurl nor Foundation's networking (issue 23).
    .target(
      name: "ImgfetchCLI",
      dependencies: [
        "ImageCodecs", "Thumbnails", "ParseFetch", "ImageFetch", "SystemFiles", "ImgfetchVersion", "CProcessSettings",
      ]),
    // Process-wide malloc settings (mallopt), which only the executable applies (through
    // Imgfetch.startProcess, its one process set-up).
    .target(name: "CProcessSettings"),
    .executableTarget(name: "imgfetch", dependencies: ["ImgfetchCLI"]),
    // Fixture paths, reference hashes and process helpers shared by the test targets.
    // SHA-256 in C for the reference-pixel hashes (fast enough at -O0 in debug builds), and the
    // posix_spawn that starts test children with no descriptor of the test process but 0-2.
    .target(name: "CFixtureSupport", path: "Tests/CFixtureSupport"),
    .target(name: "FixtureSupport", dependencies: ["CFixtureSupport", "ImageCodecs"], path: "Tests/FixtureSupport"),
    .testTarget(name: "SystemFilesTests", dependencies: ["SystemFiles"]),
    .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "CLCMS2Adapter", "FixtureSupport"]),
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
        "ImgfetchCLI", "ImageCodecs", "Thumbnails", "imgfetch", "FixtureSupport", "ParseFixtureSupport",
        "SystemFiles",
      ]),
    .testTarget(
      name: "ThumbnailsTests", dependencies: ["Thumbnails", "CResampleEngine", "ImageCodecs", "imgfetch", "FixtureSupport", "SystemFiles"]),
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
