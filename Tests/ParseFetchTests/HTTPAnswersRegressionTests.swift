import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

/// Findings of the HTTP answers campaign (fuzz/README.md), through the library, against
/// fuzz/http-answers/server.py on 127.0.0.1.
@Suite(.timeLimit(.minutes(5))) struct HTTPAnswersRegressionTests {
  /// Seed c1-230: a resume asks for `identity` and decodes nothing, so a server that gzips its 200
  /// all the same had its compressed bytes stored as the file. Now such an answer restarts the
  /// download, decoded.
  @Test func aResumeAnsweredWithAnEncodedBodyStartsAgainDecoded() async throws {
    let server = try await AnswersServer()
    let png = try TestFiles.bytes("basn2c08.png")
    let part = try TestFiles.scratchDirectory().appendingPathComponent("g.part")
    try Data(png.prefix(10)).write(to: part)
    let size = try await Downloader(options: .init(idleTimeout: 3, retryPolicy: .none)).download(
      from: server.url("/fixed/gzip-always"), to: part.path)
    #expect(size == Int64(png.count))
    #expect(try Data(contentsOf: part) == png)
  }
}
