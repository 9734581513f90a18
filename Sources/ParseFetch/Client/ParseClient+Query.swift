import FoundationEssentials

/// One object of a class query and the value of its file column.
public struct ParseObjectFile: Sendable {
  /// The object.
  public var object: ParseObjectReference
  /// The column's file; ``ParseError/missingColumn(_:column:)`` when the object lacks the column,
  /// ``ParseError/notAFile(_:column:found:)`` when it holds something else (as for one object).
  public var file: Result<ParseFile, ParseError>
}

extension ParseClient {
  /// Every object of a class that matches `where` (and lies in `range`), in pages, with the value
  /// of its file column.
  ///
  /// ```swift
  /// var walked = 0
  /// for try await page in client.objectFiles(in: "Photo", column: "image") {
  ///   for item in page { walked += 1; print(item.object, (try? item.file.get())?.name ?? "no file") }
  /// }
  /// if walked == 0 { print("no objects") }   // an empty (or unknown) class yields no page at all
  /// ```
  ///
  /// Objects that lack the column are yielded too, their `file` failing with
  /// ``ParseError/missingColumn(_:column:)``, so that a misspelt column shows on every object
  /// instead of as an empty walk; add `{"<column>":{"$exists":true}}` to `where` to skip them.
  /// Parse answers an unknown class like an empty one, so a walk that yields no page means "no
  /// object matched". ``ParseObjectFilePages/count()`` counts exactly what the walk yields.
  ///
  /// Pages are asked for in `objectId` order with `objectId > last` merged into `where`, so the
  /// walk is stable on large classes and correct when the server silently lowers `limit`: it ends
  /// only on an empty page. It never loops: a page without objectIds, or one that repeats objects
  /// already seen (a proxy that drops `$gt`), ends it with ``ParseError/pagingFailed(className:reason:)``.
  /// - Parameters:
  ///   - className: The class to walk.
  ///   - column: The file column; only this key is fetched.
  ///   - whereJSON: An optional Parse `where` constraint as JSON text.
  ///   - range: An objectId slice to stay in (one shard's part), or nil for the whole class.
  ///   - pageSize: The `limit` asked for each page.
  /// - Returns: An async sequence of pages.
  public func objectFiles(
    in className: String, column: String, where whereJSON: String? = nil, range: ObjectIDRange? = nil,
    pageSize: Int = 100
  ) -> ParseObjectFilePages {
    ParseObjectFilePages(
      client: self, className: className, column: column, whereJSON: whereJSON, range: range,
      pageSize: max(1, pageSize))
  }

  /// Counts the objects of a class that match a constraint.
  ///
  /// For the total of a walk, use ``ParseObjectFilePages/count()``, which asks with the walk's own
  /// constraint (its slice included).
  /// - Parameters:
  ///   - className: The class.
  ///   - whereJSON: An optional Parse `where` constraint as JSON text.
  /// - Returns: The server's count.
  /// - Throws: ``ParseError``, or `CancellationError`.
  public func count(in className: String, where whereJSON: String? = nil) async throws -> Int {
    try await count(in: className, constraint: QueryConstraint.merged(whereJSON, after: nil))
  }

  /// Checks a `where` constraint as a walk and a count would, before any request.
  /// - Parameter whereJSON: The constraint's JSON text.
  /// - Throws: ``ParseError/invalidQuery(message:)`` when it is not a JSON object.
  public static func checkWhere(_ whereJSON: String) throws(ParseError) {
    _ = try QueryConstraint.merged(whereJSON, after: nil)
  }

  /// Asks for `count=1&limit=0` with a ready `where`.
  func count(in className: String, constraint: String) async throws -> Int {
    let query: [(name: String, value: String)] = [("count", "1"), ("limit", "0"), ("where", constraint)]
    let body = try await get(configuration.endpoint(["classes", className], query: query))
    // A count that is not a whole number within Int's range (`1e30`) is no count.
    guard case .number(let number)? = body["count"], let count = Int(exactly: number), count >= 0 else {
      throw ParseError.unexpectedResponse(status: 200, contentType: nil, excerpt: "no count")
    }
    return count
  }
}

/// The pages of ``ParseClient/objectFiles(in:column:where:range:pageSize:)``.
public struct ParseObjectFilePages: AsyncSequence, Sendable {
  /// A page of objects, in `objectId` order.
  public typealias Element = [ParseObjectFile]
  let client: ParseClient
  let className: String
  let column: String
  let whereJSON: String?
  let range: ObjectIDRange?
  let pageSize: Int

  /// Starts the walk at the first object.
  /// - Returns: A fresh iterator.
  public func makeAsyncIterator() -> Iterator { Iterator(pages: self) }

  /// How many objects the walk will yield (when the class does not change meanwhile): the
  /// server's count under the walk's own constraint, slice included.
  /// - Returns: The count.
  /// - Throws: ``ParseError``, or `CancellationError`.
  public func count() async throws -> Int {
    try await client.count(in: className, constraint: QueryConstraint.merged(whereJSON, range: range, after: nil))
  }

  /// Fetches one page per `next()`.
  public struct Iterator: AsyncIteratorProtocol {
    let pages: ParseObjectFilePages
    var lastObjectID: String?
    var lastPage: Set<String> = []
    var finished = false

    /// Fetches the page after the last object seen.
    /// - Returns: The next non-empty page, or nil after an empty one.
    /// - Throws: ``ParseError`` (``ParseError/pagingFailed(className:reason:)`` when the answer
    ///   would make the walk loop or stray), or `CancellationError`.
    public mutating func next() async throws -> [ParseObjectFile]? {
      guard !finished else { return nil }
      let constraint = try QueryConstraint.merged(pages.whereJSON, range: pages.range, after: lastObjectID)
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
      finished = true  // until the page has proved it moves the walk forward
      var page: [ParseObjectFile] = []
      var ids: Set<String> = []
      for result in results {
        let id = try checkedID(of: result)
        let object = ParseObjectReference(className: pages.className, objectID: id)
        page.append(
          ParseObjectFile(
            object: object,
            file: Result { () throws(ParseError) in
              try ParseFile(column: result[pages.column], of: object, column: pages.column)
            }))
        ids.insert(id)
        lastObjectID = id
      }
      lastPage = ids
      finished = false
      return page
    }

    /// The objectId of one result, checked to move the walk forward inside its slice.
    private func checkedID(of result: JSONValue) throws(ParseError) -> String {
      let className = pages.className
      guard let id = result["objectId"]?.string, !id.isEmpty else {
        throw .pagingFailed(
          className: className,
          reason: "the server sent an object without an objectId (\(result.kindDescription)), so the walk "
            + "cannot page past it; check any proxy between imgfetch and Parse Server")
      }
      if id == lastObjectID || lastPage.contains(id) {
        throw .pagingFailed(
          className: className,
          reason: "the page after objectId \(lastObjectID ?? "?") repeats object \(id): the server or a proxy "
            + "ignores the objectId $gt paging constraint, so the walk would never end")
      }
      if let range = pages.range, !range.contains(id) {
        throw .pagingFailed(
          className: className,
          reason: "the server sent objectId \(id), outside this shard's slice \(range): it does not "
            + "compare objectIds bytewise (a case-insensitive collation?); shard by hash instead")
      }
      return id
    }
  }
}
