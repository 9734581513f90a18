import Foundation

/// Builds the `where` JSON of a paged walk: the caller's constraint, the column's presence and
/// `objectId > last`, each added without losing what the caller wrote.
enum QueryConstraint {
  /// Merges the constraints.
  /// - Parameters:
  ///   - userJSON: The caller's `where`, a JSON object, or nil.
  ///   - column: The column that must exist.
  ///   - lastObjectID: The last object id already seen, or nil for the first page.
  /// - Returns: The merged JSON text.
  /// - Throws: ``ParseError/invalidQuery(message:)`` when `userJSON` is not a JSON object.
  static func merged(_ userJSON: String?, column: String, after lastObjectID: String?)
    throws(ParseError) -> String
  {
    var constraint: [String: Any] = [:]
    if let userJSON {
      guard let data = userJSON.data(using: .utf8),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      else { throw .invalidQuery(message: "the where constraint is not a JSON object") }
      constraint = object
    }
    var extra: [(String, Any)] = [(column, ["$exists": true])]
    if let lastObjectID { extra.append(("objectId", ["$gt": lastObjectID])) }
    for (key, value) in extra {
      if constraint[key] == nil {
        constraint[key] = value
      } else {
        constraint = ["$and": [constraint, [key: value]]]
      }
    }
    guard let data = try? JSONSerialization.data(withJSONObject: constraint, options: [.sortedKeys])
    else { throw .invalidQuery(message: "the where constraint cannot be encoded") }
    return String(decoding: data, as: UTF8.self)
  }
}
