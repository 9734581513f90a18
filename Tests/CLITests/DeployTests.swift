import FixtureSupport
import Foundation
import ParseFixtureSupport
import Testing

/// The scale-out recipes in `deploy/` run as their schedulers would run them (the environment each
/// task gets, `imgfetch` on the PATH), against the fixture Parse Server: together the tasks cover
/// the class exactly once and the server sends each row once.
@Suite(.runsOnTestThreads, .timeLimit(.minutes(10))) struct DeployTests {
  static let deploy = Fixtures.root.appendingPathComponent("deploy")

  /// Fixture credentials as the recipes expect them, and `imgfetch` first on the PATH.
  static func environment(_ fixture: ParseFixture) -> [String: String] {
    [
      "PARSE_SERVER_URL": fixture.baseURL.absoluteString, "PARSE_APPLICATION_ID": ParseFixture.appID,
      "PARSE_REST_API_KEY": ParseFixture.restKey,
      "PATH": Fixtures.productsDirectory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
    ]
  }

  static func objectIDs(_ result: ProcessResult) throws -> [String] {
    try result.stdoutText.split(separator: "\n").map { line in
      let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
      return object["objectId"] as! String
    }
  }

  /// A Slurm array 0-4 (five tasks numbered from 0): each task finds its shard from the array
  /// variables Slurm sets.
  @Test func theSlurmArrayCoversTheClassOnce() async throws {
    let (fixture, ids) = try await ShardTests.server()
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    let script = Self.deploy.appendingPathComponent("slurm/imgfetch-array.sh").path
    var seen: [String] = []
    for task in 0...4 {
      var environment = Self.environment(fixture)
      environment["SLURM_ARRAY_TASK_ID"] = String(task)
      environment["SLURM_ARRAY_TASK_MIN"] = "0"
      environment["SLURM_ARRAY_TASK_MAX"] = "4"
      environment["SLURM_ARRAY_TASK_COUNT"] = "5"
      environment["SLURM_CPUS_PER_TASK"] = "2"
      let result = try runProcess("/bin/bash", [script, "Photo", "MainImage", cache.path], environment: environment)
      #expect(result.status == 0, "task \(task): \(result.stderrText)")
      seen += try Self.objectIDs(result)
    }
    #expect(seen.count == ids.count && Set(seen) == Set(ids))
    #expect(try await fixture.rowsSent("classes/Photo") == ShardTests.size)
  }

  @Test func theSlurmScriptRefusesAnArrayWithSteps() throws {
    let script = Self.deploy.appendingPathComponent("slurm/imgfetch-array.sh").path
    let result = try runProcess(
      "/bin/bash", [script, "Photo", "MainImage", "/nonexistent"],
      environment: [
        "PARSE_SERVER_URL": "http://127.0.0.1:9/parse", "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1",
        "SLURM_ARRAY_TASK_MAX": "15", "SLURM_ARRAY_TASK_COUNT": "8",
      ])
    #expect(result.status == 1)
    #expect(result.stderrText.contains("contiguous"))
  }

  /// The Indexed Job's container command, run with the environment each pod gets (its
  /// JOB_COMPLETION_INDEX, the manifest's env values, the secret's credentials).
  @Test func theKubernetesIndexedJobCoversTheClassOnce() async throws {
    let manifest = try String(
      contentsOf: Self.deploy.appendingPathComponent("kubernetes/imgfetch-indexed-job.yaml"), encoding: .utf8)
    let lines = manifest.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    // The folded `args` block (`- >-`): its lines joined by spaces, as YAML folds them.
    let start = try #require(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "- >-" })
    let indent = lines[start + 1].prefix { $0 == " " }.count
    let command = lines[(start + 1)...].prefix { $0.prefix { $0 == " " }.count == indent && !$0.isEmpty }
      .map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    #expect(command.hasPrefix("exec imgfetch --class"))
    // The env values of the container, by name.
    var values: [String: String] = [:]
    for (index, line) in lines.enumerated() {
      let text = line.trimmingCharacters(in: .whitespaces)
      guard text.hasPrefix("- name: "), index + 1 < lines.count else { continue }
      let next = lines[index + 1].trimmingCharacters(in: .whitespaces)
      guard next.hasPrefix("value: ") else { continue }
      let name = String(text.dropFirst("- name: ".count).split(separator: " ").first ?? "")
      var value = String(next.dropFirst("value: ".count).split(separator: "#").first ?? "")
        .trimmingCharacters(in: .whitespaces)
      if value.hasPrefix("\"") { value = String(value.dropFirst().dropLast()) }
      values[name] = value
    }
    let shards = try #require(values["SHARDS"].flatMap { Int($0) })
    #expect(manifest.contains("completions: \(shards)\n"))

    // A class with the manifest's class and column names.
    let className = try #require(values["PARSE_CLASS"])
    let column = try #require(values["PARSE_COLUMN"])
    var files: [String: String] = [:]
    var objects: [[String: Any]] = []
    for object in ParseFixture.randomPhotos(120) {
      let name = (object["MainImage"] as! [String: Any])["name"] as! String
      files[name] = "basn0g02.png"
      objects.append(["objectId": object["objectId"]!, column: ParseFixture.file(name)])
    }
    let fixture = try await ParseFixture(files: files, seed: ["classes": [className: objects], "maxLimit": 50])
    let cache = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: cache) }
    var seen: [String] = []
    for index in 0..<shards {
      var environment = Self.environment(fixture).merging(values) { $1 }
      environment["JOB_COMPLETION_INDEX"] = String(index)
      environment["XDG_CACHE_HOME"] = cache.path
      let result = try runProcess("/bin/sh", ["-c", command], environment: environment)
      #expect(result.status == 0, "index \(index): \(result.stderrText)")
      seen += try Self.objectIDs(result)
    }
    #expect(seen.count == objects.count && Set(seen) == Set(objects.map { $0["objectId"] as! String }))
    #expect(try await fixture.rowsSent("classes/\(className)") == objects.count)
  }
}
