/// Builds the `where` JSON of a paged walk and of its count: the caller's constraint, the shard's
/// objectId slice and `objectId > last`, each added without losing what the caller wrote.
///
/// The count and the walk use the same constraint (only the paging cursor differs), so a progress
/// total always equals the number of objects the walk yields. The caller's JSON is never decoded and
/// written again (its numbers keep every digit): the objectId condition is added to its object as one
/// more member, or, when it constrains `objectId` itself, beside it in an `$and`.
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
    var user: (text: String, fields: [String: JSONValue])?
    if let userJSON {
      let text = userJSON.trimmingASCIIWhitespace()
      guard case .object(let fields)? = JSONValue.parse(Array(text.utf8)), text.hasSuffix("}") else {
        throw .invalidQuery(message: "the where constraint is not a JSON object")
      }
      user = (text, fields)
    }
    // One objectId condition: the cursor replaces the slice's lower bound (it is past it).
    var conditions: [(String, String)] = []
    if let lastObjectID {
      conditions.append(("$gt", lastObjectID))
    } else if let lower = range?.lowerBound {
      conditions.append(("$gte", lower))
    }
    if let upper = range?.upperBound { conditions.append(("$lt", upper)) }
    guard !conditions.isEmpty else { return user?.text ?? "{}" }
    let objectID =
      "{" + conditions.map { "\(JSONText.quoted($0.0)):\(JSONText.quoted($0.1))" }.joined(separator: ",") + "}"
    guard let user, !user.fields.isEmpty else { return #"{"objectId":\#(objectID)}"# }
    if user.fields["objectId"] != nil { return #"{"$and":[\#(user.text),{"objectId":\#(objectID)}]}"# }
    return String(user.text.dropLast()) + #","objectId":\#(objectID)}"#
  }
}
