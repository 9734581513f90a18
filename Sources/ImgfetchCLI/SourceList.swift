import SystemFiles

/// `--from-file LIST`: sources one per line, from a file, a pipe or standard input (`-`).
enum SourceList {
  /// The most bytes a list may hold (some millions of sources).
  static let limit = 256 << 20

  /// The sources a list names: one per line, in order; blank lines and lines starting with `#` are
  /// skipped, a line's `\r` (a list written on Windows) and surrounding spaces are dropped.
  /// - Parameter path: The list, or `-` for standard input.
  /// - Returns: The sources.
  /// - Throws: ``UsageError`` naming the list and the system's reason when it cannot be read.
  static func read(_ path: String) throws(UsageError) -> [String] {
    let bytes: [UInt8]
    do { bytes = try StreamText.read(path, limit: limit) } catch {
      throw UsageError("--from-file cannot read its list: \(error)")
    }
    return parse(bytes)
  }

  /// The sources of a list's bytes (split by bytes: in Swift's `String`, `\r\n` is one character).
  static func parse(_ bytes: [UInt8]) -> [String] {
    let blank: Set<UInt8> = [0x20, 0x09, 0x0D]
    return bytes.split(separator: 0x0A).compactMap { line in
      let trimmed = line.drop { blank.contains($0) }.reversed().drop { blank.contains($0) }.reversed()
      guard let first = trimmed.first, first != UInt8(ascii: "#") else { return nil }
      return String(decoding: trimmed, as: UTF8.self)
    }
  }
}
