/// Formats the one progress line of a batch (several sources, a folder, a class walk) for a terminal
/// of a given width. Pure: no I/O, easy to test.
///
/// `37% [###########                   ] 37 of 100 items, 12.4 MB, ETA 41s`: the whole batch's
/// percentage and bar, the items finished of the total, the bytes downloaded so far by every item
/// (finished or in flight), and the time left. Without a total (a walk that could not count its
/// class): `37 items done, 12.4 MB`. The bar, then the bytes and the ETA are dropped when the
/// terminal is too narrow.
public struct BatchProgressLine: Sendable, Equatable {
  /// Items finished (successfully or not).
  public var done: Int
  /// Items in the batch, when known.
  public var total: Int?
  /// How much of the batch is done, 0...1, when the total is known.
  public var fraction: Double?
  /// Bytes downloaded so far across the batch.
  public var bytesDownloaded: Int64
  /// Seconds left, when they can be estimated.
  public var secondsLeft: Double?

  /// Creates a batch line.
  /// - Parameters:
  ///   - done: Items finished.
  ///   - total: Items in the batch, if known.
  ///   - fraction: The batch's fraction done, if known.
  ///   - bytesDownloaded: Bytes downloaded so far.
  ///   - secondsLeft: The estimated time left, if known.
  public init(
    done: Int, total: Int? = nil, fraction: Double? = nil, bytesDownloaded: Int64 = 0, secondsLeft: Double? = nil
  ) {
    self.done = done
    self.total = total
    self.fraction = fraction
    self.bytesDownloaded = bytesDownloaded
    self.secondsLeft = secondsLeft
  }

  /// The line, at most `width - 1` characters (the last column is left free so no terminal wraps).
  /// - Parameter width: Terminal columns.
  /// - Returns: The text to draw.
  public func render(width: Int) -> String {
    let room = Swift.max(10, width - 1)
    let figure = total.map { "\(done) of \(counted(Swift.max($0, done), "item"))" } ?? "\(counted(done, "item")) done"
    var tail: [String] = []
    if bytesDownloaded > 0 { tail.append(ProgressLine.bytes(bytesDownloaded)) }
    if let secondsLeft { tail.append("ETA \(ProgressLine.duration(secondsLeft))") }
    let percent = fraction.map { "\(Int((Swift.min($0, 1) * 100).rounded(.down)))%" }
    func joined(bar: Int) -> String {
      var head = percent ?? ""
      if let fraction, bar > 0 {
        let filled = Int((Double(bar) * Swift.min(fraction, 1)).rounded(.down))
        head += " [" + String(repeating: "#", count: filled) + String(repeating: " ", count: bar - filled) + "]"
      }
      return ((head.isEmpty ? [] : [head]) + [([figure] + tail).joined(separator: ", ")]).joined(separator: " ")
    }
    // The bar takes what is left, up to 30 columns; under 10 it goes, then the bytes, then the ETA.
    while true {
      let bare = joined(bar: 0)
      let spare = room - bare.count - 3
      if fraction != nil && spare >= 10 { return joined(bar: Swift.min(30, spare)) }
      if bare.count <= room || tail.isEmpty { return String(bare.prefix(room)) }
      tail.removeFirst()
    }
  }
}
