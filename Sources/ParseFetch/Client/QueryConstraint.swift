import Foundation

/// Builds the `where` JSON of a paged walk and of its count: the caller's constraint, the shard's
/// objectId slice and `objectId > last`, each added without losing what the caller wrote.
///
/// The count and the walk use the same constraint (only the paging cursor differs), so a progress
/// total always equals the number of objects the walk yields.
enum QueryConstraint {
  /// Merges the constraints.
  /// - Parameters:
  ///   - userJSON: The caller's `where`, a JSON object, or nil.
  ///   - range: The objectId slice to stay in, or nil for the whole class.
  ///   - lastObjectID: The last object id already seen, or nil for the first page (and the count).
  /// - Returns: The merged JSON text.
  /// - Throws: ``ParseError/invalidQuery(message:)`` when `userJSON` is not a JSON object.
  static func merged(_ userJSON: String?, range: ObjectIDRange? = nil, after lastObjectID: String?)
    throws(ParseError) -> String
  {
    var constraint: [String: Any] = [:]
    if let userJSON {
      guard let data = userJSON.data(using: .utf8),
        let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
      else { throw .invalidQuery(message: "the where constraint is not a JSON object") }
      constraint = object
    }
    // One objectId condition: the cursor replaces the slice's lower bound (it is past it).
    var objectID: [String: Any] = [:]
    if let lastObjectID {
      objectID["$gt"] = lastObjectID
    } else if let lower = range?.lowerBound {
      objectID["$gte"] = lower
    }
    if let upper = range?.upperBound { objectID["$lt"] = upper }
    if !objectID.isEmpty {
      if constraint["objectId"] == nil {
        constraint["objectId"] = objectID
      } else {
        constraint = ["$and": [constraint, ["objectId": objectID]]]
      }
    }
    guard let data = try? JSONSerialization.data(withJSONObject: constraint, options: [.sortedKeys])
    else { throw .invalidQuery(message: "the where constraint cannot be encoded") }
    return String(decoding: data, as: UTF8.self)
  }
}
