import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

/// Issue 30.5 through the library: answers whose body never ends, or comes a byte a second, end
/// within a bound. A followed redirect's body is read to 64 KiB and the redirect followed; an error
/// answer's body is kept to 4 KiB, the message, and the exchange ends there; a slow body meets the
/// speed floor (1024 bytes/s over each idle-timeout window, by default). Before the fix the first
/// two read until the server gave up (tens of MB) and the third was never timed out at all.
@Suite(.serialized, .timeLimit(.minutes(15))) struct EndlessAnswerTests {
  /// Wall time is all these can measure, so the server's answers last far longer than a loaded
  /// host can slow a correct read: they end after `endlessLimit` (300 s), and one that reads until
  /// then is over `bound` (150 s). A correct read takes 3 s alone; loaded CI hosts have stretched
  /// such a run to 28 s and, for the command, 49 s.
  static let endlessLimit = 300
  static let bound = Duration.seconds(150)

  static func downloader() -> Downloader {
    Downloader(options: .init(maximumBytes: 100_000, idleTimeout: 3, retryPolicy: .none))
  }

  @Test func aRedirectWithAnEndlessBodyIsFollowed() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let part = try TestFiles.scratchDirectory().appendingPathComponent("r.part").path
    let start = ContinuousClock.now
    let size = try await Self.downloader().download(from: server.url("/fixed/redirect-endless"), to: part)
    #expect(ContinuousClock.now - start < Self.bound)
    #expect(try Data(contentsOf: URL(fileURLWithPath: part)) == TestFiles.bytes("basn2c08.png"))
    #expect(size == Int64(try TestFiles.bytes("basn2c08.png").count))
  }

  @Test(arguments: ["/fixed/error-endless", "/fixed/error-endless-close"])
  func anErrorWithAnEndlessBodyIsReportedWithItsStart(path: String) async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let part = try TestFiles.scratchDirectory().appendingPathComponent("e.part").path
    let start = ContinuousClock.now
    let error = await #expect(throws: DownloadError.self) {
      try await Self.downloader().download(from: server.url(path), to: part)
    }
    #expect(ContinuousClock.now - start < Self.bound)
    guard case .httpStatus(_, 500, let excerpt, _)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(excerpt == "the server is on fire")
    #expect(!FileManager.default.fileExists(atPath: part), "no error body is stored")
  }

  @Test func aRESTErrorWithAnEndlessBodyIsReportedWithItsStart() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let configuration = ParseConfiguration(
      serverURL: server.url("/fixed/error-endless"), applicationID: "app", restAPIKey: "key")
    let client = ParseClient(configuration: configuration, retryPolicy: .none, timeout: 3)
    let start = ContinuousClock.now
    let error = await #expect(throws: ParseError.self) {
      try await client.file(of: ParseObjectReference(className: "Photo", objectID: "Ed1nuqPvcm"), column: "image")
    }
    #expect(ContinuousClock.now - start < Self.bound)
    guard case .unexpectedResponse(500, "text/plain", "the server is on fire")? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
  }

  @Test func aBodyDrippingAByteASecondIsTooSlow() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let part = try TestFiles.scratchDirectory().appendingPathComponent("d.part").path
    let start = ContinuousClock.now
    let error = await #expect(throws: DownloadError.self) {
      try await Self.downloader().download(from: server.url("/fixed/drip"), to: part)
    }
    let elapsed = ContinuousClock.now - start
    #expect(elapsed >= .seconds(3) && elapsed < Self.bound, "one window of 3 s, then the floor")
    guard case .connection(_, let failure)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failure.kind == .tooSlow && failure.isTransient)
    #expect(failure.message.hasPrefix("the answer came slower than 1024 bytes/s ("), "\(failure.message)")
  }

  @Test func aRedirectDrippingItsBodyIsTooSlow() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let part = try TestFiles.scratchDirectory().appendingPathComponent("rd.part").path
    let start = ContinuousClock.now
    let error = await #expect(throws: DownloadError.self) {
      try await Self.downloader().download(from: server.url("/fixed/redirect-drip"), to: part)
    }
    #expect(ContinuousClock.now - start < Self.bound)
    guard case .connection(_, let failure)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failure.kind == .tooSlow)
  }

  @Test func anExchangePastItsDeadlineFails() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let part = try TestFiles.scratchDirectory().appendingPathComponent("t.part").path
    let options = Downloader.Options(idleTimeout: 3, minimumSpeed: 0, maximumDuration: 1.5, retryPolicy: .none)
    let start = ContinuousClock.now
    let error = await #expect(throws: DownloadError.self) {
      try await Downloader(options: options).download(from: server.url("/fixed/drip"), to: part)
    }
    let elapsed = ContinuousClock.now - start
    #expect(elapsed >= .seconds(1.5) && elapsed < Self.bound)
    guard case .connection(_, let failure)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failure.kind == .deadlineExceeded && failure.isTransient)
    #expect(failure.message == "the answer took longer than the 1.5 s limit")
  }

  /// With no floor (0), the same drip is held by the idle timeout only, as before: the floor is
  /// what ends it.
  @Test func noFloorLetsADripRunUntilTheDeadline() async throws {
    let server = try await AnswersServer(endlessLimit: Self.endlessLimit)
    let part = try TestFiles.scratchDirectory().appendingPathComponent("n.part").path
    let options = Downloader.Options(idleTimeout: 2, minimumSpeed: 0, maximumDuration: 5, retryPolicy: .none)
    let start = ContinuousClock.now
    let error = await #expect(throws: DownloadError.self) {
      try await Downloader(options: options).download(from: server.url("/fixed/drip"), to: part)
    }
    #expect(ContinuousClock.now - start >= .seconds(5), "past two windows of the idle timeout")
    guard case .connection(_, let failure)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(failure.kind == .deadlineExceeded)
  }
}
