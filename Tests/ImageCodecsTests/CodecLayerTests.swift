import FixtureSupport
import Foundation
import Testing

/// The codec layer stands on public ground (issue 20): no library's private header or internal
/// structure anywhere in Sources, engines that include no library header, layers (core, engines,
/// adapters, front ends) that include and call only downward, and no cycle among the C files.
/// `scripts/check-c-layers` proves it from the sources and the compiled objects' symbols; this
/// test fails when any of it comes back.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct CodecLayerTests {
  @Test func theCodecLayerUsesNoLibraryInternalsAndCallsOnlyDownward() throws {
    let script = Fixtures.root.appendingPathComponent("scripts/check-c-layers").path
    let result = try runProcess("/usr/bin/env", ["python3", script])
    #expect(result.status == 0, "\(result.stderrText)")
    #expect(result.stdoutText.contains("check-c-layers: OK"))
  }

  /// The private headers named by the issue, searched as `grep -rE` would: in every file under Sources.
  @Test func noFileUnderSourcesNamesAPrivateLibraryHeader() throws {
    let sources = Fixtures.root.appendingPathComponent("Sources")
    let forbidden = ["jpeg" + "int", "JPEG_" + "INTERNALS", "png" + "priv", "png" + "struct", "png" + "info"]
    var found: [String] = []
    let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)
    while let url = files?.nextObject() as? URL {
      guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
      for name in forbidden where text.contains(name) { found.append("\(url.path): \(name)") }
    }
    #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
  }
}
