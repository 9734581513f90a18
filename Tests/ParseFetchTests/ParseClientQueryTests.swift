import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

@Suite struct ParseClientQueryTests {
  /// 23 objects with files, two without the column, one whose column is a string.
  static var objects: [[String: Any]] {
    (0..<23).map {
      ParseFixture.photo(String(format: "obj%03d", $0), ParseFixture.file("f\($0).jpg"))
    }
      + [ParseFixture.photo("none1", nil), ParseFixture.photo("str01", "text")]
  }

  func fixture(maxLimit: Int? = nil) async throws -> ParseFixture {
    var seed: [String: Any] = ["classes": ["Photo": Self.objects.shuffled()]]
    seed["maxLimit"] = maxLimit
    return try await ParseFixture(seed: seed)
  }

  func walk(_ fixture: ParseFixture, where whereJSON: String? = nil, pageSize: Int = 10)
    async throws
    -> [[ParseObjectFile]]
  {
    let client = ParseClient(configuration: fixture.configuration(), retryPolicy: .none)
    var pages: [[ParseObjectFile]] = []
    for try await page in client.objectFiles(
      in: "Photo", column: "MainImage", where: whereJSON, pageSize: pageSize)
    {
      pages.append(page)
      if pages.count > 50 { break }
    }
    return pages
  }

  @Test func visitsEveryObjectWithTheColumnInOrder() async throws {
    let pages = try await walk(fixture())
    let ids = pages.flatMap { $0.map(\.object.objectID) }
    #expect(ids == (0..<23).map { String(format: "obj%03d", $0) } + ["str01"])
    #expect(pages.map(\.count) == [10, 10, 4])
  }

  @Test func keepsGoingWhenTheServerClampsTheLimit() async throws {
    let pages = try await walk(fixture(maxLimit: 3), pageSize: 10)
    #expect(pages.flatMap { $0 }.count == 24)
    #expect(pages.allSatisfy { $0.count <= 3 })
  }

  @Test func reportsNonFileValuesPerObject() async throws {
    let all = try await walk(fixture()).flatMap { $0 }
    let bad = all.filter { (try? $0.file.get()) == nil }
    #expect(bad.map(\.object.objectID) == ["str01"])
    #expect(throws: ParseError.self) { try bad[0].file.get() }
  }

  @Test func mergesTheCallersWhereWithThePaging() async throws {
    let pages = try await walk(
      fixture(maxLimit: 2), where: #"{"objectId":{"$in":["obj001","obj005","obj020","none1"]}}"#)
    #expect(pages.flatMap { $0.map(\.object.objectID) } == ["obj001", "obj005", "obj020"])
  }

  @Test func reportsABadQueryOnCode102() async throws {
    let error = await #expect(throws: ParseError.self) {
      _ = try await walk(fixture(), where: #"{"name":{"$regex":"^a"}}"#)
    }
    guard case .invalidQuery? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
  }

  @Test func rejectsAWhereThatIsNotAnObject() async throws {
    await #expect(throws: ParseError.self) { _ = try await walk(fixture(), where: "[1]") }
  }

  @Test func countsMatchingObjects() async throws {
    let fixture = try await fixture()
    let client = ParseClient(configuration: fixture.configuration(), retryPolicy: .none)
    #expect(try await client.count(in: "Photo") == 25)
    #expect(try await client.count(in: "Photo", where: #"{"objectId":{"$gt":"obj020"}}"#) == 3)
  }
}
