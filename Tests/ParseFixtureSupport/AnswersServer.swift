import Foundation

/// The hostile HTTP answers server (`fuzz/http-answers/server.py`) on 127.0.0.1, for one test and
/// stopped when the test drops it: endless redirect and error bodies, a body that drips a byte a
/// second, and the campaign's random answers (see the script's header).
public final class AnswersServer: Sendable {
  public let server: ServerProcess

  /// Starts a server (it exits with the test process, `--watch-parent`).
  public init() async throws {
    let script = TestFiles.root.appendingPathComponent("fuzz/http-answers/server.py").path
    server = try await ServerProcess.start(["python3", script, "--watch-parent"])
  }

  deinit { server.stop() }

  /// The URL of a path on the server, such as `/fixed/drip`.
  public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(server.port)\(path)")! }
}
