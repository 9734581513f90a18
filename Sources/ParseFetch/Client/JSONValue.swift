import ParseEssentials

/// A JSON value as Parse sends it (one implementation, in ParseEssentials, which the codec-only
/// executable's warm hit shares).
typealias JSONValue = ParseJSON
