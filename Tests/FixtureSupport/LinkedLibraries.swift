import Foundation

/// The libjpeg and libpng this test process runs on, asked of the process itself at run time.
///
/// The suites run on Debian's libjpeg-turbo 2.1.5 and libpng 1.6.39 (`swift test`) and on upstream
/// libjpeg-turbo 3.2.0 and libpng 1.6.58 built by their own CMake (`scripts/portability`). Both
/// libjpegs are `libjpeg.so.62` and a header's version says what was compiled against, not what was
/// loaded, so a test whose expectation legitimately depends on the library asks here, states the
/// difference, and compares with the library it runs on:
///
///     let kind = LinkedLibraries.jpeg.choose(turbo2: DecodeError.Kind.unsupported, turbo3: .corrupt)
///
/// Differences measured between the two pairs (scripts/portability's probes, 2026-12-01):
/// - libjpeg-turbo 3.0 decodes lossless JPEG (SOF3) through the 8-bit API; 2.1 refuses it as an
///   unsupported process ("Unsupported JPEG process: SOF type 0xc3"). A lossless file with bad
///   parameters is therefore unsupported on 2.1 and corrupt on 3.x.
/// - libjpeg-turbo 3.0.1 changed block smoothing of progressive images with vertically subsampled
///   chroma (4:2:0, 4:4:0) or exactly two blocks wide (its ChangeLog, 3.0.1 item 2): where AC
///   coefficients are missing (later scans absent, or a lenient decode of a cut file), 2.1.5 and
///   3.2.0 give different pixels at every DCT scale, and at 1/8 when only DC scans arrived. Complete
///   files decode identically (every row of Fixtures/images/reference.tsv).
/// - libpng 1.6.58 words some errors differently: "bad header (invalid type)" for 1.6.39's
///   "invalid chunk type", "IHDR: too long" for "IHDR: invalid", "IEND: missing IHDR" for
///   "IEND: out of place"; it no longer warns "chunk data is too large", and warns "hIST: out of
///   place" on PngSuite's ch1n3p04.png and ch2n3p08.png (pixels unchanged). A test matching one of
///   these texts accepts both wordings.
public enum LinkedLibraries {
  /// The libjpeg-turbo generation loaded.
  public enum JPEGGeneration: Sendable, Equatable, CustomStringConvertible {
    /// libjpeg-turbo 2.x (Debian 12: 2.1.5).
    case turbo2
    /// libjpeg-turbo 3.x (upstream 3.2.0), told by its lossless API (`jpeg_enable_lossless`).
    case turbo3

    public var description: String { self == .turbo2 ? "libjpeg-turbo 2.x" : "libjpeg-turbo 3.x" }

    /// The value that holds on this generation.
    /// - Parameters:
    ///   - turbo2: The expectation on libjpeg-turbo 2.x.
    ///   - turbo3: The expectation on libjpeg-turbo 3.x.
    /// - Returns: The one for the library loaded.
    public func choose<T>(turbo2: T, turbo3: T) -> T { self == .turbo2 ? turbo2 : turbo3 }
  }

  /// The libjpeg-turbo generation this process loaded.
  public static let jpeg: JPEGGeneration = {
    precondition(symbol("jpeg_CreateDecompress") != nil, "this test process has no libjpeg loaded")
    return symbol("jpeg_enable_lossless") != nil ? .turbo3 : .turbo2
  }()

  /// libpng's own version number (`png_access_version_number()`, e.g. 10639 for 1.6.39).
  public static let libpngVersion: UInt32 = {
    guard let function = symbol("png_access_version_number") else {
      preconditionFailure("this test process has no libpng loaded")
    }
    return unsafeBitCast(function, to: (@convention(c) () -> UInt32).self)()
  }()

  /// The libjpeg and libpng files mapped into this process, for test messages.
  public static let files: [String] = {
    let maps = ProcFiles.text("/proc/self/maps") ?? ""
    let paths = maps.split(separator: "\n").compactMap { line in
      line.split(separator: " ", omittingEmptySubsequences: true).last.map(String.init)
    }
    return Set(paths.filter { $0.contains("/libjpeg.so") || $0.contains("/libpng") }).sorted()
  }()

  /// One line for a test's message: the generation, libpng's version and the files.
  public static var summary: String {
    "\(jpeg), libpng \(libpngVersion / 10000).\(libpngVersion / 100 % 100).\(libpngVersion % 100) "
      + "(\(files.joined(separator: ", ")))"
  }

  /// A symbol of the libraries already loaded (the main program and what it links).
  private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
    dlsym(dlopen(nil, RTLD_NOW), name)
  }
}
