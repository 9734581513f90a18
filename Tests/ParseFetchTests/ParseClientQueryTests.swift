import Foundation
import ParseFixtureSupport
import Testing

@testable import ParseFetch

@Suite(.timeLimit(.minutes(10))) struct ParseClientQueryTests {
  /// 23 objects with files, two without the column, one whose column is a string.
  static var objects: [[String: Any]] {
    (0..<23).map {
      ParseFixture.photo(String(format: "obj%03d", $0), ParseFixture.file("f\($0).jpg"))
    }
      + [ParseFixture.photo("none1", nil), ParseFixture.photo("str01", "text")]
  }

  func fixture(maxLimit: Int? = nil, objects: [[String: Any]] = objects, faults: [[String: Any]] = [])
    async throws -> ParseFixture
  {
    var seed: [String: Any] = ["classes": ["Photo": objects.shuffled()], "faults": faults]
    seed["maxLimit"] = maxLimit
    return try await ParseFixture(seed: seed)
  }

  /// Walks the class; stops after 50 pages so that a walk that would loop forever shows as a
  /// failed expectation instead of a hung test.
  func walk(
    _ fixture: ParseFixture, column: String = "MainImage", where whereJSON: String? = nil,
    range: ObjectIDRange? = nil, pageSize: Int = 10
  ) async throws -> [[ParseObjectFile]] {
    let client = ParseClient(configuration: fixture.configuration(), retryPolicy: .none)
    var pages: [[ParseObjectFile]] = []
    for try await page in client.objectFiles(
      in: "Photo", column: column, where: whereJSON, range: range, pageSize: pageSize)
    {
      pages.append(page)
      if pages.count > 50 { break }
    }
    return pages
  }

  @Test func visitsEveryObjectInOrder() async throws {
    let pages = try await walk(fixture())
    let ids = pages.flatMap { $0.map(\.object.objectID) }
    #expect(ids == ["none1"] + (0..<23).map { String(format: "obj%03d", $0) } + ["str01"])
    #expect(pages.map(\.count) == [10, 10, 5])
  }

  @Test func keepsGoingWhenTheServerClampsTheLimit() async throws {
    let pages = try await walk(fixture(maxLimit: 3), pageSize: 10)
    #expect(pages.flatMap { $0 }.count == 25)
    #expect(pages.allSatisfy { $0.count <= 3 })
  }

  /// An object without the column, or with something else in it, is that object's error, worded as
  /// for one object (issue 12.6).
  @Test func reportsMissingAndNonFileValuesPerObject() async throws {
    let all = try await walk(fixture()).flatMap { $0 }
    let bad = all.filter { (try? $0.file.get()) == nil }
    #expect(bad.map(\.object.objectID) == ["none1", "str01"])
    let messages = bad.map { item -> String in
      guard case .failure(let error) = item.file else { return "" }
      return error.description
    }
    #expect(messages[0].hasPrefix("Photo/none1: column MainImage is missing"))
    #expect(messages[1] == "Photo/str01: column MainImage is not a file (found a string)")
  }

  /// A misspelt column shows on every object instead of as a silent, empty walk.
  @Test func aMisspeltColumnIsMissingOnEveryObject() async throws {
    let all = try await walk(fixture(), column: "MainImgae").flatMap { $0 }
    #expect(all.count == 25)
    for item in all {
      guard case .failure(.missingColumn(let object, let column)) = item.file else {
        Issue.record("\(item.object): \(item.file)")
        continue
      }
      #expect(object == item.object && column == "MainImgae")
    }
  }

  /// An empty class (and an unknown one: Parse answers both alike) yields no page, and counts 0.
  @Test func anEmptyClassYieldsNoPageAndCountsZero() async throws {
    let fixture = try await fixture(objects: [])
    #expect(try await walk(fixture).isEmpty)
    let client = ParseClient(configuration: fixture.configuration(), retryPolicy: .none)
    #expect(try await client.objectFiles(in: "Photo", column: "MainImage").count() == 0)
    #expect(try await client.objectFiles(in: "Nope", column: "MainImage").count() == 0)
  }

  @Test func mergesTheCallersWhereWithThePaging() async throws {
    let pages = try await walk(
      fixture(maxLimit: 2), where: #"{"objectId":{"$in":["obj001","obj005","obj020","none1"]}}"#)
    #expect(pages.flatMap { $0.map(\.object.objectID) } == ["none1", "obj001", "obj005", "obj020"])
  }

  /// The progress total of a class (issue 11.15) is the count of what the walk yields, also with
  /// objects that lack the column, a caller's where, and a shard's slice.
  @Test(
    arguments: [
      (nil, nil), (#"{"objectId":{"$in":["obj001","none1","str01","zzz"]}}"#, nil),
      (#"{"MainImage":{"$exists":true}}"#, nil), (nil, ObjectIDRange(lowerBound: "obj005", upperBound: "p")),
      (#"{"objectId":{"$lt":"obj010"}}"#, ObjectIDRange(lowerBound: "obj003", upperBound: nil)),
    ] as [(String?, ObjectIDRange?)])
  func theCountIsWhatTheWalkYields(where whereJSON: String?, range: ObjectIDRange?) async throws {
    let fixture = try await fixture(maxLimit: 4)
    let walked = try await walk(fixture, where: whereJSON, range: range).flatMap { $0 }.count
    let client = ParseClient(configuration: fixture.configuration(), retryPolicy: .none)
    let pages = client.objectFiles(in: "Photo", column: "MainImage", where: whereJSON, range: range)
    #expect(try await pages.count() == walked)
    if range == nil { #expect(try await client.count(in: "Photo", where: whereJSON) == walked) }
  }

  /// A proxy that drops `$gt` answers every page with the first one: the walk must end with an
  /// error naming the class, not loop (issue 11.10).
  @Test func aServerThatIgnoresTheCursorEndsTheWalkWithAnError() async throws {
    let fixture = try await fixture(faults: [["target": "classes/Photo", "kind": "ignoreGt", "times": -1]])
    let error = await #expect(throws: ParseError.self) { _ = try await walk(fixture) }
    guard case .pagingFailed(let className, let reason)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(className == "Photo" && reason.contains("$gt"))
    #expect(error?.description.hasPrefix("class Photo: the page after objectId obj008 repeats object none1") == true)
    #expect(try await fixture.requests("classes/Photo") == 2)
  }

  /// Results without objectIds cannot move the cursor: an error naming the class, not a loop.
  @Test func resultsWithoutObjectIdsEndTheWalkWithAnError() async throws {
    let fixture = try await fixture(faults: [["target": "classes/Photo", "kind": "omitObjectId", "times": -1]])
    let error = await #expect(throws: ParseError.self) { _ = try await walk(fixture) }
    guard case .pagingFailed(let className, let reason)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(className == "Photo" && reason.contains("without an objectId"))
    #expect(try await fixture.requests("classes/Photo") == 1)
  }

  /// A server that orders ids differently from bytes (a case-insensitive collation) would make
  /// slices overlap: ids outside the slice end the walk.
  @Test func idsOutsideTheSliceEndTheWalk() async throws {
    let fixture = try await fixture(faults: [["target": "classes/Photo", "kind": "ignoreGt", "times": -1]])
    // After the first page, the cursor replaces the slice's lower bound; the fault drops it.
    let error = await #expect(throws: ParseError.self) {
      _ = try await walk(fixture, range: ObjectIDRange(lowerBound: "obj005", upperBound: nil), pageSize: 3)
    }
    guard case .pagingFailed(_, let reason)? = error else {
      Issue.record("got \(String(describing: error))")
      return
    }
    #expect(reason.contains("outside this shard's slice [obj005, …)"))
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
