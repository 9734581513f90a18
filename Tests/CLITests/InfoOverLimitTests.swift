import FixtureSupport
import Foundation
import ImageCodecs
import Testing

/// `info` of a file over the pixel limit (issue 32): described from its header, with the reason
/// it is over the limit, exit 0; `verify` of it still fails (exit 4).
@Suite(.runsOnTestThreads, .timeLimit(.minutes(5))) struct InfoOverLimitTests {
  @Test func anImageOverThePixelLimitIsDescribedAndSaidToBeOverIt() throws {
    let file = Fixtures.image("Landscape_1.jpg")
    let header = try ImageDecoder.probe(contentsOf: file)
    let run = try runImgfetch(["info", file, "--max-pixels", "1000"])
    #expect(run.status == 0, "\(run.stderrText)")
    #expect(run.stderrText.isEmpty, "\(run.stderrText)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout)) as? [String: Any])
    #expect(object["format"] as? String == "jpeg")
    #expect(object["storedWidth"] as? Int == header.width && object["storedHeight"] as? Int == header.height)
    let pixels = header.width * header.height
    #expect(
      object["overLimit"] as? String
        == "image is \(header.width)x\(header.height) (\(pixels) pixels), over the 1000-pixel limit")
    #expect(object["error"] == nil)
    // Within the limit: no key.
    let within = try runImgfetch(["info", file])
    #expect(within.status == 0 && !within.stdoutText.contains("overLimit"))
    // verify decodes, so the limit still refuses it.
    let verify = try runImgfetch(["verify", file, "--max-pixels", "1000"])
    #expect(verify.status == 4, "\(verify.stderrText)")
  }
}
