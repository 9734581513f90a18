import ImageCodecs

#if canImport(Glibc)
  import Glibc
#endif

/// Working buffers of the resampler, allocated so that running out of memory is an error for this
/// image (``/ImageCodecs/DecodeError/Kind/outOfMemory``), not a trap: their sizes follow the input's width.
enum ScratchMemory {
  /// Allocates `count` uninitialised elements; release them with ``release(_:)``.
  /// - Parameters:
  ///   - type: The element type (a plain integer type).
  ///   - count: The number of elements, at least 0.
  /// - Returns: The buffer.
  /// - Throws: ``/ImageCodecs/DecodeError/Kind/outOfMemory`` when the memory is not available or the size
  ///   overflows.
  static func allocate<T: FixedWidthInteger>(_ type: T.Type, count: Int) throws(DecodeError)
    -> UnsafeMutablePointer<T>
  {
    let bytes = max(1, count).multipliedReportingOverflow(by: MemoryLayout<T>.stride)
    guard !bytes.overflow, let raw = malloc(bytes.partialValue) else {
      throw DecodeError(
        kind: .outOfMemory, format: nil,
        message: "cannot allocate \(count) x \(MemoryLayout<T>.stride) bytes for resampling")
    }
    return raw.bindMemory(to: T.self, capacity: max(1, count))
  }

  /// Frees a buffer from ``allocate(_:count:)``.
  static func release<T>(_ pointer: UnsafeMutablePointer<T>) { free(pointer) }
}
