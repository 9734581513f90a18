import Foundation
import ParseFetch

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The fixture Parse Server (`Fixtures/parse-server/server.py`) on 127.0.0.1, seeded for one test
/// and stopped when the test drops it.
public final class ParseFixture: Sendable {
  public static let appID = "fixture-app"
  public static let restKey = "rest-SECRET-4f1d"
  public static let masterKey = "master-SECRET-9c2e"
  public static let sessionToken = "r:session-SECRET-77ab"
  public static let secrets = [restKey, masterKey, sessionToken]

  public let server: ServerProcess
  public let directory: URL

  /// Starts a server.
  /// - Parameters:
  ///   - files: Stored file name → image name in `Fixtures/images` (or an absolute path).
  ///   - seed: Further seed keys (classes, faults, quirks, maxLimit…), see server.py.
  public init(files: [String: String] = [:], seed: [String: Any] = [:]) async throws {
    directory = try TestFiles.scratchDirectory()
    var full: [String: Any] = [
      "appId": Self.appID, "restKey": Self.restKey, "masterKey": Self.masterKey,
      "sessions": [Self.sessionToken: "user1"],
      "files": files.mapValues { $0.hasPrefix("/") ? $0 : TestFiles.image($0).path },
    ]
    full.merge(seed) { $1 }
    let seedFile = directory.appendingPathComponent("seed.json")
    try JSONSerialization.data(withJSONObject: full).write(to: seedFile)
    let script = TestFiles.root.appendingPathComponent("Fixtures/parse-server/server.py").path
    server = try await ServerProcess.start([
      "python3", script, "--config", seedFile.path, "--watch-parent",
    ])
  }

  deinit {
    server.stop()
    try? FileManager.default.removeItem(at: directory)
  }

  public var baseURL: URL { URL(string: "http://127.0.0.1:\(server.port)/parse")! }

  /// A configuration with the REST key (and more, when asked).
  public func configuration(masterKey: Bool = false, sessionToken: String? = nil) -> ParseConfiguration {
    ParseConfiguration(
      serverURL: baseURL, applicationID: Self.appID, restAPIKey: Self.restKey,
      masterKey: masterKey ? Self.masterKey : nil, sessionToken: sessionToken)
  }

  /// The URL the server gives for a stored file.
  public func fileURL(_ name: String, fault: String? = nil) -> URL {
    let unreserved = CharacterSet(
      charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    let encoded = name.addingPercentEncoding(withAllowedCharacters: unreserved) ?? name
    return URL(
      string: "\(baseURL)/files/\(Self.appID)/\(encoded)" + (fault.map { "?fault=\($0)" } ?? ""))!
  }

  /// How many requests reached a route (the path after the mount, such as `files/<app>/<name>`).
  public func requests(_ route: String) async throws -> Int {
    try await stats()["counts"]?[route] as? Int ?? 0
  }

  /// How many requests reached any stored file (every `files/...` route together).
  public func fileRequests() async throws -> Int {
    let counts = try await stats()["counts"] ?? [:]
    return counts.filter { $0.key.hasPrefix("files/") }.values.reduce(0) { $0 + ($1 as? Int ?? 0) }
  }

  /// How many query results (rows) the server has sent for a route, such as `classes/Photo`.
  public func rowsSent(_ route: String) async throws -> Int {
    try await stats()["rows"]?[route] as? Int ?? 0
  }

  /// Objects with random ten-character Parse-style ids (`[0-9A-Za-z]`), each with a File column
  /// `MainImage` named after its id (`<32 hex>_<id>.png`).
  public static func randomPhotos(_ count: Int) -> [[String: Any]] {
    let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    var ids: Set<String> = []
    while ids.count < count { ids.insert(String((0..<10).map { _ in alphabet.randomElement()! })) }
    return ids.map { photo($0, file("0123456789abcdef0123456789abcdef_\($0).png")) }
  }

  /// The headers of the last request to a route, names in lower case.
  public func lastHeaders(_ route: String) async throws -> [String: String] {
    let headers = try await stats()["headers"]?[route] as? [String: String] ?? [:]
    return Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { $1 }
  }

  /// Adds faults at run time (see server.py for the kinds).
  public func inject(_ faults: [[String: Any]]) async throws {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/__control/faults")!)
    request.httpMethod = "POST"
    request.httpBody = try JSONSerialization.data(withJSONObject: faults)
    _ = try await URLSession.shared.data(for: request)
  }

  /// Clears every fault and every count (`POST /__control/reset`).
  public func reset() async throws {
    var request = URLRequest(url: URL(string: "http://127.0.0.1:\(server.port)/__control/reset")!)
    request.httpMethod = "POST"
    _ = try await URLSession.shared.data(for: request)
  }

  private func stats() async throws -> [String: [String: Any]] {
    let url = URL(string: "http://127.0.0.1:\(server.port)/__control/stats")!
    let (data, _) = try await URLSession.shared.data(from: url)
    return try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]] ?? [:]
  }

  /// A Photo object whose column holds `value`.
  public static func photo(_ id: String, _ value: Any?) -> [String: Any] {
    var object: [String: Any] = ["objectId": id, "createdAt": "2022-01-01T12:23:45.678Z"]
    object["MainImage"] = value
    return object
  }

  /// A File column value.
  public static func file(_ name: String) -> [String: Any] { ["__type": "File", "name": name] }
}
