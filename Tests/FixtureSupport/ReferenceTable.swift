import Foundation

/// One row of `Fixtures/images/reference.tsv`: the expected outcome and pixel hashes of a fixture.
public struct ReferenceRow: Sendable, CustomStringConvertible {
  /// File name in `Fixtures/images`.
  public let file: String
  /// `valid`, `valid-warn` or `invalid`.
  public let expect: String
  /// `RGBA`, `RGB` or `L`.
  public let mode: String
  /// Stored width and height (0 for invalid files).
  public let width: Int
  public let height: Int
  /// SHA-256 of the raw pixels, no orientation applied.
  public let sha256: String
  /// Alternative accepted hash (16-bit PNG scaled instead of stripped), or `-`.
  public let altSHA256: String
  /// EXIF orientation as recorded (0 when undefined, `-` read as 0).
  public let orientation: Int
  /// SHA-256 after applying the orientation, and the oriented size `WxH`; `nil` when the same as sha256.
  public let oriented: (sha256: String, width: Int, height: Int)?

  /// The file name, for test argument display.
  public var description: String { file }

  /// All rows of the table.
  public static func load() throws -> [ReferenceRow] {
    let text = try String(contentsOf: Fixtures.images.appendingPathComponent("reference.tsv"), encoding: .utf8)
    var lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
    let header = lines.removeFirst().map(String.init)
    func column(_ name: String) -> Int { header.firstIndex(of: name)! }
    return lines.map { fields in
      let value = { (name: String) in String(fields[column(name)]) }
      var oriented: (String, Int, Int)? = nil
      let orientedText = value("oriented_sha256")
      if orientedText != "-", let at = orientedText.firstIndex(of: "@") {
        let size = orientedText[orientedText.index(after: at)...].split(separator: "x")
        oriented = (String(orientedText[..<at]), Int(size[0])!, Int(size[1])!)
      }
      return ReferenceRow(
        file: value("file"), expect: value("expect"), mode: value("mode"), width: Int(value("width")) ?? 0,
        height: Int(value("height")) ?? 0, sha256: value("sha256"), altSHA256: value("alt_sha256"),
        orientation: Int(value("orientation")) ?? 0, oriented: oriented)
    }
  }
}
