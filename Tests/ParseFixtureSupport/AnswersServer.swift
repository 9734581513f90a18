import Foundation

/// The hostile HTTP answers server (`fuzz/http-answers/server.py`) on 127.0.0.1, for one test and
/// stopped when the test drops it: endless redirect and error bodies, a body that drips a byte a
/// second, and the campaign's random answers (see the script's header).
public final class AnswersServer: Sendable {
  public let server: ServerProcess

  /// Starts a server (it exits with the test process, `--watch-parent`).
  /// - Parameter endlessLimit: Seconds after which its endless and slow answers end (60 when nil).
  public init(endlessLimit: Int? = nil) async throws {
    let script = TestFiles.root.appendingPathComponent("fuzz/http-answers/server.py").path
    let limit = endlessLimit.map { ["--endless-limit", String($0)] } ?? []
    server = try await ServerProcess.start(["python3", script, "--watch-parent"] + limit)
  }

  deinit { server.stop() }

  /// The URL of a path on the server, such as `/fixed/drip`.
  public func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(server.port)\(path)")! }
}
