import FixtureSupport
import Foundation
import Testing

/// lcms2 is opened with `dlopen` by the first colour conversion: a command on an image without a
/// colour profile never loads it (a fifth of a short process's start-up), and a process that finds
/// no usable lcms2 ignores a profile with a warning that says why, as it does a profile lcms2 refuses.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(5))) struct LCMS2LoadingTests {
  /// The files the dynamic loader opened for one run of imgfetch (glibc's LD_DEBUG=files report).
  private func loadedFiles(_ arguments: [String]) throws -> String {
    let run = try runImgfetch(arguments, environment: ["LD_DEBUG": "files"])
    #expect(run.status == 0, "\(run.stderrText)")
    return run.stderrText
  }

  @Test func verifyingAnImageWithoutAProfileNeverLoadsLCMS2() throws {
    let png = try loadedFiles(["verify", Fixtures.image("basn2c08.png")])
    #expect(png.contains("libpng16.so") && !png.contains("liblcms2"))
    // An embedded profile is judged by lcms2, so the same run on such a file loads it.
    let profiled = try loadedFiles(["verify", Fixtures.root.appendingPathComponent("Fixtures/color/adobe-rgb.jpg").path])
    #expect(profiled.contains("liblcms2.so.2"))
  }

  @Test func anLCMS2WithoutItsEntryPointsLeavesTheProfileIgnoredAndSaysWhy() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    // A library named liblcms2.so.2 found first (LD_LIBRARY_PATH), exporting none of lcms2's calls.
    let environment = try Fixtures.stubLibrary(named: "liblcms2.so.2", in: scratch)
    let photo = scratch.appendingPathComponent("adobe-rgb.jpg").path
    try FileManager.default.copyItem(atPath: Fixtures.root.appendingPathComponent("Fixtures/color/adobe-rgb.jpg").path, toPath: photo)
    let run = try runImgfetch(["--thumbnail", "64", photo], environment: environment)
    #expect(run.status == 0)
    #expect(run.stdoutText == "\(photo)\t\(photo).thumb-64.jpg\n")
    #expect(
      run.stderrText
        == "imgfetch: \(photo): ICC profile ignored: lcms2 cannot be loaded (liblcms2.so.2 has no "
        + "cmsBuildGamma; lcms2 2.8 or later is needed); treated as sRGB\n")
    #expect(FileManager.default.fileExists(atPath: "\(photo).thumb-64.jpg"))
  }
}
