import FoundationEssentials

/// A file stored in a Parse file column: its permanent name and the URL the server gave for it.
///
/// The server rebuilds `url` on every response (it may be a CDN link or a presigned address that
/// expires), so caches key on `name`.
public struct ParseFile: Sendable, Hashable {
  /// The stored file name, such as `d41d8cd98f00b204e9800998ecf8427e_photo.jpg`.
  public var name: String
  /// Where to download the file from, exactly as the server gave it.
  public var url: URL

  /// Creates a file reference.
  /// - Parameters:
  ///   - name: The stored file name.
  ///   - url: The download URL.
  public init(name: String, url: URL) {
    self.name = name
    self.url = url
  }

  /// Reads a column's value as a File.
  /// - Throws: `ParseError.missingColumn` when the object has no such field, `ParseError.notAFile`
  ///   saying what was found instead of a File.
  init(column value: JSONValue?, of object: ParseObjectReference, column: String)
    throws(ParseError)
  {
    guard let value else { throw .missingColumn(object, column: column) }
    guard value["__type"]?.string == "File" else {
      throw .notAFile(object, column: column, found: value.kindDescription)
    }
    guard let name = value["name"]?.string, !name.isEmpty else {
      throw .notAFile(object, column: column, found: "a File without a name")
    }
    guard let text = value["url"]?.string, let url = URL(string: text), url.scheme != nil else {
      throw .notAFile(object, column: column, found: "a File without a usable url")
    }
    self.init(name: name, url: url)
  }
}

/// Names one Parse object as `Class/objectId`.
public struct ParseObjectReference: Sendable, Hashable, CustomStringConvertible {
  /// The class name, such as `Photo`.
  public var className: String
  /// The object's id, such as `Ed1nuqPvcm`.
  public var objectID: String

  /// Creates a reference.
  /// - Parameters:
  ///   - className: The class name.
  ///   - objectID: The object's id.
  public init(className: String, objectID: String) {
    self.className = className
    self.objectID = objectID
  }

  /// `Class/objectId`.
  public var description: String { "\(className)/\(objectID)" }
}
