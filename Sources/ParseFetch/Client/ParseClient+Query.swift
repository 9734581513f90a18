import Foundation

/// One object of a class query and the value of its file column.
public struct ParseObjectFile: Sendable {
  /// The object.
  public var object: ParseObjectReference
  /// The column's file, or ``ParseError/notAFile(_:column:found:)`` when it holds something else.
  public var file: Result<ParseFile, ParseError>
}

extension ParseClient {
  /// Every object of a class that has a value in the file column, in pages.
  ///
  /// Pages are asked for in `objectId` order with `objectId > last` merged into `where`, so the
  /// walk is stable on large classes and correct when the server silently lowers `limit`: it
  /// ends only on an empty page.
  /// - Parameters:
  ///   - className: The class to walk.
  ///   - column: The file column; only this key is fetched.
  ///   - whereJSON: An optional Parse `where` constraint as JSON text.
  ///   - pageSize: The `limit` asked for each page.
  /// - Returns: An async sequence of pages.
  public func objectFiles(
    in className: String, column: String, where whereJSON: String? = nil, pageSize: Int = 100
  ) -> ParseObjectFilePages {
    ParseObjectFilePages(
      client: self, className: className, column: column, whereJSON: whereJSON,
      pageSize: max(1, pageSize))
  }

  /// Counts the objects of a class that match a constraint.
  /// - Parameters:
  ///   - className: The class.
  ///   - whereJSON: An optional Parse `where` constraint as JSON text.
  /// - Returns: The server's count.
  /// - Throws: ``ParseError``, or `CancellationError`.
  public func count(in className: String, where whereJSON: String? = nil) async throws -> Int {
    var query: [(name: String, value: String)] = [("count", "1"), ("limit", "0")]
    if let whereJSON { query.append(("where", whereJSON)) }
    let body = try await get(configuration.endpoint(["classes", className], query: query))
    // A count that is not a whole number within Int's range (`1e30`) is no count.
    guard case .number(let number)? = body["count"], let count = Int(exactly: number), count >= 0 else {
      throw ParseError.unexpectedResponse(status: 200, contentType: nil, excerpt: "no count")
    }
    return count
  }
}

/// The pages of ``ParseClient/objectFiles(in:column:where:pageSize:)``.
public struct ParseObjectFilePages: AsyncSequence, Sendable {
  /// A page of objects, in `objectId` order.
  public typealias Element = [ParseObjectFile]
  let client: ParseClient
  let className: String
  let column: String
  let whereJSON: String?
  let pageSize: Int

  /// Starts the walk at the first object.
  /// - Returns: A fresh iterator.
  public func makeAsyncIterator() -> Iterator { Iterator(pages: self) }

  /// Fetches one page per `next()`.
  public struct Iterator: AsyncIteratorProtocol {
    let pages: ParseObjectFilePages
    var lastObjectID: String?
    var finished = false

    /// Fetches the page after the last object seen.
    /// - Returns: The next non-empty page, or nil after an empty one.
    /// - Throws: ``ParseError``, or `CancellationError`.
    public mutating func next() async throws -> [ParseObjectFile]? {
      guard !finished else { return nil }
      let constraint = try QueryConstraint.merged(
        pages.whereJSON, column: pages.column, after: lastObjectID)
      let url = pages.client.configuration.endpoint(
        ["classes", pages.className],
        query: [
          ("where", constraint), ("order", "objectId"), ("keys", pages.column),
          ("limit", String(pages.pageSize)),
        ])
      guard case .array(let results)? = try await pages.client.get(url)["results"],
        !results.isEmpty
      else {
        finished = true
        return nil
      }
      var page: [ParseObjectFile] = []
      for result in results {
        guard let id = result["objectId"]?.string else { continue }
        let object = ParseObjectReference(className: pages.className, objectID: id)
        page.append(
          ParseObjectFile(
            object: object,
            file: Result { () throws(ParseError) in
              try ParseFile(column: result[pages.column], of: object, column: pages.column)
            }))
        lastObjectID = id
      }
      return page
    }
  }
}
