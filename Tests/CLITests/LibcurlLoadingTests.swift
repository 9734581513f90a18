import FixtureSupport
import Foundation
import Testing

/// libcurl is opened with `dlopen` by the first request: a process that finds no usable libcurl
/// fails that request as a network error that says why, and runs its local commands as ever.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(5))) struct LibcurlLoadingTests {
  @Test func aLibcurlWithoutItsEntryPointsIsANetworkErrorThatSaysSo() throws {
    let scratch = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: scratch) }
    // A library named libcurl.so.4 found first (LD_LIBRARY_PATH), exporting none of libcurl's calls.
    let environment = try Fixtures.stubLibrary(named: "libcurl.so.4", in: scratch)
    let url = "http://127.0.0.1:9/x.jpg"
    let fetch = try runImgfetch([url, "--cache-dir", scratch.path + "/cache"], environment: environment)
    #expect(fetch.status == 3)
    #expect(
      fetch.stderrText
        == "imgfetch: \(url): could not download \(url) (libcurl.so.4 has no curl_global_init "
        + "(libcurl 7.68 or later is needed))\n")
    let png = Fixtures.image("basn2c08.png")
    let verify = try runImgfetch(["verify", png], environment: environment)
    #expect(verify.status == 0 && verify.stdoutText == "\(png): OK\n")
  }
}
