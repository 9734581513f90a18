import Testing

@testable import ImageCodecs

/// Large freed buffers are reused by the next image instead of being faulted in again.
@Suite struct PixelBufferPoolTests {
  let big = 40 << 20

  /// Issue 13.7: a library keeps none of its users' memory unless the application asks.
  @Test func poolingIsOffUnlessTheApplicationTurnsItOn() {
    let pool = PixelBufferPool()
    #expect(pool.maximumBytes == 0)
    let buffer = pool.allocate(capacity: big)
    pool.recycle(buffer.pointer, capacity: buffer.capacity)
    #expect(pool.pooledBytes == 0)
  }

  @Test func aFreedLargeBufferIsReusedByTheNextAllocation() {
    let pool = PixelBufferPool()
    pool.maximumBytes = 256 << 20
    let first = pool.allocate(capacity: big)
    pool.recycle(first.pointer, capacity: first.capacity)
    #expect(pool.pooledBytes == big)
    let second = pool.allocate(capacity: big - 1000)
    #expect(second.pointer == first.pointer && second.capacity == big)
    #expect(pool.pooledBytes == 0)
    pool.recycle(second.pointer, capacity: second.capacity)
    pool.removeAll()
    #expect(pool.pooledBytes == 0)
  }

  @Test func smallBuffersAndTooLargeRequestsGoToTheSystem() {
    let pool = PixelBufferPool()
    pool.maximumBytes = 256 << 20
    let small = pool.allocate(capacity: 1 << 20)
    pool.recycle(small.pointer, capacity: small.capacity)
    #expect(pool.pooledBytes == 0)
    let kept = pool.allocate(capacity: big)
    pool.recycle(kept.pointer, capacity: kept.capacity)
    let larger = pool.allocate(capacity: big * 2)
    #expect(larger.pointer != kept.pointer)
    pool.recycle(larger.pointer, capacity: larger.capacity)
    pool.removeAll()
  }

  @Test func limitsAreKept() {
    let pool = PixelBufferPool()
    pool.maximumBytes = 256 << 20
    pool.maximumBuffers = 2
    let buffers = (0..<3).map { _ in pool.allocate(capacity: big) }
    for buffer in buffers { pool.recycle(buffer.pointer, capacity: buffer.capacity) }
    #expect(pool.pooledBytes == 2 * big)
    pool.maximumBytes = big
    #expect(pool.pooledBytes == big)
    pool.maximumBytes = 0
    #expect(pool.pooledBytes == 0)
    let refused = pool.allocate(capacity: big)
    pool.recycle(refused.pointer, capacity: refused.capacity)
    #expect(pool.pooledBytes == 0)
  }
}

/// Issue 11.13: pixel memory sized by input is an error when it is not available, never a trap.
@Suite struct ImageAllocationTests {
  /// 2^20 x 2^20 RGBA16: 8 TiB, within `Int` but beyond any machine.
  static let side = 1 << 20

  @Test func anImageFromBytesThatCannotBeAllocatedIsNil() {
    // A lazy collection claiming 8 TiB of zeros: only the allocation could fail, and it must not trap.
    let bytes = repeatElement(UInt8(0), count: Self.side * Self.side * 8)
    #expect(Image(width: Self.side, height: Self.side, pixelFormat: .rgba16, bytes: bytes) == nil)
  }

  @Test func allocatingAnImageThatCannotExistThrowsOutOfMemory() {
    let error = #expect(throws: DecodeError.self) {
      try Image(allocatingWidth: Self.side, height: Self.side, pixelFormat: .rgba16)
    }
    #expect(error?.kind == .outOfMemory)
  }
}
