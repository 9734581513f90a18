/// One contiguous, 64-byte aligned pixel allocation, shared between `Image` copies until one of
/// them writes (copy on write).
final class PixelStorage: @unchecked Sendable {
  // Safety: the pointer is written only through `Image`'s mutating accessors, which copy the storage
  // first unless the caller holds the only reference; readers never see a write in progress.
  let pointer: UnsafeMutableRawPointer
  let capacity: Int

  /// Allocates at least `capacity` bytes, uninitialised (large buffers come from ``PixelBufferPool``).
  /// Traps when the memory is not available; decoders use ``init(reserving:)``.
  init(capacity: Int) {
    (pointer, self.capacity) = PixelBufferPool.shared.allocate(capacity: capacity)
  }

  /// Allocates at least `capacity` bytes, uninitialised, or nil when the memory is not available.
  init?(reserving capacity: Int) {
    guard let allocation = PixelBufferPool.shared.allocateIfAvailable(capacity: capacity) else { return nil }
    (pointer, self.capacity) = allocation
  }

  /// Allocates `capacity` bytes set to zero.
  convenience init(zeroedCapacity capacity: Int) {
    self.init(capacity: capacity)
    pointer.initializeMemory(as: UInt8.self, repeating: 0, count: capacity)
  }

  /// A copy of the first `count` bytes in a new allocation.
  func copy(count: Int) -> PixelStorage {
    let clone = PixelStorage(capacity: count)
    clone.pointer.copyMemory(from: pointer, byteCount: count)
    return clone
  }

  deinit { PixelBufferPool.shared.recycle(pointer, capacity: capacity) }
}
