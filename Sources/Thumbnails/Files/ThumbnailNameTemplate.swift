/// A thumbnail's file name made from a template, as vipsthumbnail's `-o tn_%s.jpg`
/// (`imgfetch --output`).
///
/// - `%s` is the source's file name without its extension (`photo` for `photo.jpg`; a name
///   without a dot, or a dot-name such as `.x`, whole).
/// - `%d` is the size label ``ThumbnailNaming/sizeLabel(_:fit:)`` gives (`256`, `320x200-cover`):
///   needed when one run writes several sizes, so that they do not share a name.
/// - `%%` is a `%`; any other `%` is refused.
///
/// The template's extension (`jpg`, `jpeg`, `png` or `webp`, any case) chooses the format
/// (``format``; set ``ThumbnailOptions/format``'s choice to it). A relative template is read from
/// the source's folder (next to the source, or in its mirrored folder under
/// ``ThumbnailOptions/outputDirectory``), and may name subfolders, which are created; an
/// absolute one is used as it is (and cannot go with an output folder).
///
/// ```swift
/// var options = ThumbnailOptions(size: .longestSide(256), format: .jpeg())
/// options.nameTemplate = try ThumbnailNameTemplate("tn_%s.jpg")
/// // photos/photo.png -> photos/tn_photo.jpg
/// ```
public struct ThumbnailNameTemplate: Sendable, Hashable, CustomStringConvertible {
  /// The template as given.
  public let text: String
  /// The format the template's extension names.
  public let format: ThumbnailFormat.Choice

  /// One piece of a template.
  enum Piece: Hashable {
    case literal(String)
    case stem
    case size
  }

  let pieces: [Piece]

  /// The extensions a template may end with, and the format each names.
  static let extensions: [(String, ThumbnailFormat.Choice)] = [
    ("jpg", .jpeg), ("jpeg", .jpeg), ("png", .png), ("webp", .webp),
  ]

  /// Reads a template.
  /// - Parameter text: Such as `tn_%s.jpg`, `thumbs/%s-%d.webp` or `/srv/thumbs/%s.png`.
  /// - Throws: ``ThumbnailError/invalidOptions(_:)`` for an empty name, a `%` other than `%s`, `%d`
  ///   or `%%`, or an extension that is not a thumbnail format's.
  public init(_ text: String) throws(ThumbnailError) {
    let name = text.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? text
    guard let dot = name.lastIndex(of: "."), dot > name.startIndex else {
      throw .invalidOptions("the name template \(text) has no extension: end it with .jpg, .png or .webp")
    }
    let written = name[name.index(after: dot)...].lowercased()
    guard let choice = Self.extensions.first(where: { $0.0 == written })?.1 else {
      throw .invalidOptions(
        "the name template \(text) ends with .\(name[name.index(after: dot)...]): use .jpg, .jpeg, .png or .webp")
    }
    var pieces: [Piece] = []
    var literal = ""
    var characters = text.makeIterator()
    while let character = characters.next() {
      guard character == "%" else {
        literal.append(character)
        continue
      }
      switch characters.next() {
      case "%": literal.append("%")
      case let code where code == "s" || code == "d":
        if !literal.isEmpty { pieces.append(.literal(literal)) }
        literal = ""
        pieces.append(code == "s" ? .stem : .size)
      case let other:
        throw .invalidOptions(
          "the name template \(text) has %\(other.map(String.init) ?? ""): only %s (the source's name), %d (the size) and %% are known"
        )
      }
    }
    if !literal.isEmpty { pieces.append(.literal(literal)) }
    self.text = text
    self.format = choice
    self.pieces = pieces
  }

  /// Whether the template is an absolute path.
  public var isAbsolute: Bool { text.hasPrefix("/") }

  /// Whether the template has `%d`, so that sizes get names of their own.
  public var namesTheSize: Bool { pieces.contains(.size) }

  /// Whether the template has `%s`, so that sources get names of their own.
  public var namesTheSource: Bool { pieces.contains(.stem) }

  /// The path the template gives, relative to the source's folder unless it is absolute.
  /// - Parameters:
  ///   - sourceName: The source's file name (without folder).
  ///   - sizeLabel: The size label (``ThumbnailNaming/sizeLabel(_:fit:)``).
  /// - Returns: The path.
  public func name(forSourceNamed sourceName: String, sizeLabel: String) -> String {
    let stem = Self.stem(of: sourceName)
    return pieces.map { piece in
      switch piece {
      case .literal(let text): text
      case .stem: stem
      case .size: sizeLabel
      }
    }.joined()
  }

  /// Whether a file name (its last component) has the shape the template's last component gives
  /// some source and size: how a source that is one of these thumbnails is recognised.
  /// - Parameter path: A file name or path.
  /// - Returns: Whether it matches.
  public func matches(fileName path: String) -> Bool {
    let name = Array(path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path)
    // The last component's pieces: the literal after the template's last slash, and what follows.
    var last: [Piece] = []
    for piece in pieces.reversed() {
      if case .literal(let text) = piece, let slash = text.lastIndex(of: "/") {
        let tail = String(text[text.index(after: slash)...])
        if !tail.isEmpty { last.insert(.literal(tail), at: 0) }
        break
      }
      last.insert(piece, at: 0)
    }
    return Self.match(name[...], last[...])
  }

  /// Matches characters against pieces: a literal exactly, `%s` any non-empty run, `%d` a size label.
  static func match(_ name: ArraySlice<Character>, _ pieces: ArraySlice<Piece>) -> Bool {
    guard let first = pieces.first else { return name.isEmpty }
    switch first {
    case .literal(let text):
      let characters = Array(text)
      guard name.starts(with: characters) else { return false }
      return match(name.dropFirst(characters.count), pieces.dropFirst())
    case .stem, .size:
      guard !name.isEmpty else { return false }
      for end in name.indices.dropFirst().map({ $0 }) + [name.endIndex] {
        let run = name[name.startIndex..<end]
        if first == .size {
          var label = Substring(String(run))
          if label.hasSuffix("-cover") { label = label.dropLast(6) }
          guard ThumbnailSize.isLabel(label) else { continue }
        }
        if match(name[end...], pieces.dropFirst()) { return true }
      }
      return false
    }
  }

  /// A file name without its extension (`photo` for `photo.jpg`, `a.b` for `a.b.png`); a name
  /// without a dot after its first character is whole.
  static func stem(of name: String) -> String {
    guard let dot = name.lastIndex(of: "."), dot > name.startIndex else { return name }
    return String(name[..<dot])
  }

  /// The template as given.
  public var description: String { text }
}
