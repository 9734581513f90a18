/// Formats one line of progress for a terminal of a given width. Pure: no I/O, easy to test.
///
/// Transfers: `name  1.2 MB / 3.4 MB  35% [#####      ]  2.1 MB/s  ETA 1s`; with `items`, the line
/// starts with them: `[0/1] name …` (a batch draws ``BatchProgressLine`` instead). Parts are
/// dropped from the right when the terminal is too narrow, and the name is shortened in the middle.
public struct ProgressLine: Sendable, Equatable {
  /// What is being worked on (a file name).
  public var label: String
  /// Bytes received so far.
  public var bytesReceived: Int64
  /// Total bytes, when the server said.
  public var bytesExpected: Int64?
  /// Transfer rate in bytes per second, when known.
  public var bytesPerSecond: Double?
  /// Items finished and the batch total, for batches.
  public var items: (done: Int, total: Int)?

  /// Creates a progress line.
  /// - Parameters:
  ///   - label: What is being worked on.
  ///   - bytesReceived: Bytes so far.
  ///   - bytesExpected: Total bytes, if known.
  ///   - bytesPerSecond: Rate, if known.
  ///   - items: Batch position, if a batch.
  public init(
    label: String, bytesReceived: Int64 = 0, bytesExpected: Int64? = nil, bytesPerSecond: Double? = nil,
    items: (done: Int, total: Int)? = nil
  ) {
    self.label = label
    self.bytesReceived = bytesReceived
    self.bytesExpected = bytesExpected
    self.bytesPerSecond = bytesPerSecond
    self.items = items
  }

  /// The line, at most `width - 1` characters (the last column is left free so no terminal wraps).
  /// - Parameter width: Terminal columns.
  /// - Returns: The text to draw.
  public func render(width: Int) -> String {
    let room = Swift.max(10, width - 1)
    var head = items.map { "[\($0.done)/\($0.total)] " } ?? ""
    var parts: [String] = []
    let fraction = bytesExpected.flatMap { $0 > 0 ? Double(bytesReceived) / Double($0) : nil }
    parts.append(
      bytesExpected.map { "\(ProgressLine.bytes(bytesReceived)) / \(ProgressLine.bytes($0))" }
        ?? ProgressLine.bytes(bytesReceived))
    if let fraction { parts.append("\(Int((Swift.min(fraction, 1) * 100).rounded(.down)))%") }
    var tail: [String] = []
    if let rate = bytesPerSecond, rate > 0 {
      tail.append("\(ProgressLine.bytes(Int64(rate)))/s")
      if let expected = bytesExpected, expected > bytesReceived {
        tail.append("ETA \(ProgressLine.duration(Double(expected - bytesReceived) / rate))")
      }
    }
    // Drop optional parts until the fixed parts plus a short name fit; then size bar and name.
    while !tail.isEmpty && head.count + 12 + (parts + tail).joined(separator: "  ").count + 2 > room {
      tail.removeLast()
    }
    if head.count + 12 + parts.joined(separator: "  ").count + 2 > room { parts = [] }
    if head.count > room - 4 { head = "" }
    let fixed = (parts + tail).joined(separator: "  ")
    var barWidth = 0
    if let fraction, room - head.count - fixed.count - 23 >= 12 {
      barWidth = Swift.min(30, room - head.count - fixed.count - 23)
      let filled = Int((Double(barWidth) * Swift.min(fraction, 1)).rounded(.down))
      let bar = "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: barWidth - filled) + "]"
      if let percent = parts.firstIndex(where: { $0.hasSuffix("%") }) { parts[percent] += " " + bar }
    }
    let body = (parts + tail).joined(separator: "  ")
    let nameRoom = room - head.count - (body.isEmpty ? 0 : body.count + 2)
    let name = ProgressLine.shorten(label, to: nameRoom)
    return head + name + (body.isEmpty ? "" : "  " + body)
  }

  /// A byte count for people: `512 B`, `1.2 KB`, `3.4 MB`, `1.0 GB` (powers of 1000).
  public static func bytes(_ count: Int64) -> String {
    let units = ["B", "KB", "MB", "GB", "TB"]
    var value = Double(count)
    var unit = 0
    while value >= 1000 && unit < units.count - 1 {
      value /= 1000
      unit += 1
    }
    if unit == 0 { return "\(count) B" }
    let tenths = (value * 10).rounded() / 10
    return "\(tenths) \(units[unit])"
  }

  /// A duration for people: `42s`, `3m05s`, `1h02m`.
  static func duration(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "?" }
    let total = Int(seconds.rounded(.up))
    if total < 60 { return "\(total)s" }
    if total < 3600 {
      let s = total % 60
      return "\(total / 60)m" + (s < 10 ? "0" : "") + "\(s)s"
    }
    let m = (total / 60) % 60
    return "\(total / 3600)h" + (m < 10 ? "0" : "") + "\(m)m"
  }

  /// The text cut in the middle with `…` to at most `limit` characters.
  static func shorten(_ text: String, to limit: Int) -> String {
    guard text.count > limit else { return text }
    guard limit > 3 else { return String(text.prefix(Swift.max(0, limit))) }
    let keep = limit - 1
    return String(text.prefix(keep - keep / 2)) + "…" + String(text.suffix(keep / 2))
  }

  /// Equality over every field (tuples are compared by value).
  public static func == (lhs: ProgressLine, rhs: ProgressLine) -> Bool {
    lhs.label == rhs.label && lhs.bytesReceived == rhs.bytesReceived && lhs.bytesExpected == rhs.bytesExpected
      && lhs.bytesPerSecond == rhs.bytesPerSecond && lhs.items?.done == rhs.items?.done
      && lhs.items?.total == rhs.items?.total
  }
}
