/// One contiguous, 64-byte aligned pixel allocation, shared between `Image` copies until one of
/// them writes (copy on write).
final class PixelStorage: @unchecked Sendable {
  // Safety: the pointer is written only through `Image`'s mutating accessors, which copy the storage
  // first unless the caller holds the only reference; readers never see a write in progress.
  let pointer: UnsafeMutableRawPointer
  let capacity: Int

  /// Allocates at least `capacity` bytes, uninitialised (large buffers come from ``PixelBufferPool``),
  /// or nil when the memory is not available: no pixel allocation ever traps.
  init?(reserving capacity: Int) {
    guard let allocation = PixelBufferPool.shared.allocateIfAvailable(capacity: capacity) else { return nil }
    (pointer, self.capacity) = allocation
  }

  /// A copy of the first `count` bytes in a new allocation, or nil when the memory is not available.
  func copy(count: Int) -> PixelStorage? {
    guard let clone = PixelStorage(reserving: count) else { return nil }
    clone.pointer.copyMemory(from: pointer, byteCount: count)
    return clone
  }

  deinit { PixelBufferPool.shared.recycle(pointer, capacity: capacity) }
}
