import Foundation

/// nginx serving a scratch directory on 127.0.0.1 (via `scripts/nginx-test-host.sh`, which
/// installs nginx when missing); stopped when dropped.
public final class NginxHost: Sendable {
  public let root: URL
  public let server: ServerProcess

  /// Starts nginx over a fresh directory holding copies of the named test images.
  public init(images: [String]) async throws {
    root = try TestFiles.scratchDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.path)
    for name in images {
      try FileManager.default.copyItem(
        at: TestFiles.image(name), to: root.appendingPathComponent(name))
    }
    let script = TestFiles.root.appendingPathComponent("scripts/nginx-test-host.sh").path
    server = try await ServerProcess.start(["bash", script, root.path])
  }

  deinit {
    server.stop()
    try? FileManager.default.removeItem(at: root)
  }

  public func url(_ name: String) -> URL { URL(string: "http://127.0.0.1:\(server.port)/\(name)")! }
}
