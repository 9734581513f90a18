import ImageCodecs

/// The intermediate image between the two passes, stored column by column: column `x` holds the
/// `rows * channels` samples of pixels (x, 0), (x, 1), … in order, padded to a multiple of 16
/// samples so that every vector load and store of a column stays inside it.
struct ColumnMajorRows {
  /// The samples (scaled by 2^6), `columnStride` per column.
  let samples: UnsafeMutablePointer<Int16>
  /// The number of columns (the input width).
  let columns: Int
  /// The samples of a column that hold pixels: rows times channels.
  let columnLength: Int
  /// Samples from one column to the next: `columnLength` rounded up to a multiple of 16.
  let columnStride: Int

  /// Allocates an intermediate with its padding zeroed; release it with ``deallocate()``.
  /// - Parameters:
  ///   - columns: The number of columns.
  ///   - rows: Pixels per column.
  ///   - channels: Samples per pixel.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the samples cannot be allocated.
  init(columns: Int, rows: Int, channels: Int) throws(DecodeError) {
    self.columns = columns
    columnLength = rows * channels
    columnStride = (columnLength + 15) / 16 * 16
    let (count, overflow) = columns.multipliedReportingOverflow(by: columnStride)
    guard !overflow else {
      throw DecodeError(kind: .outOfMemory, format: nil, message: "a \(columns)x\(rows) intermediate is too large")
    }
    samples = try ScratchMemory.allocate(Int16.self, count: count)
    for column in 0..<columns {
      (samples + column * columnStride + columnLength).initialize(repeating: 0, count: columnStride - columnLength)
    }
  }

  /// Frees the samples.
  func deallocate() { ScratchMemory.release(samples) }
}
