internal import SystemFiles

#if canImport(Glibc)
  import Glibc
#endif

/// Keeps a few large freed pixel buffers for the next image instead of returning them to the kernel.
///
/// Why: the C library's allocator hands buffers larger than about 32 MiB straight from the kernel
/// and gives them back on free, so every new 30-megapixel image pays ~20,000 page faults (a quarter
/// of the decode time here) before the decoder writes a pixel. A pipeline that decodes one image
/// after another reuses the previous image's memory instead, already mapped.
///
/// Off by default: a library must not keep hundreds of MiB of its users' memory. An application
/// that decodes one large image after another turns it on (`imgfetch` does, with 256 MiB):
/// `PixelBufferPool.shared.maximumBytes = 256 << 20`. Only buffers of at least ``minimumBytes`` are
/// kept, at most ``maximumBuffers`` of them and ``maximumBytes`` in all; set ``maximumBytes`` back
/// to 0 to turn pooling off, or call ``removeAll()`` to give the memory back now.
public final class PixelBufferPool: Sendable {
  /// The pool every ``Image`` allocation goes through.
  public static let shared = PixelBufferPool()

  /// Buffers smaller than this are left to the system allocator (which recycles them well).
  public let minimumBytes = 8 << 20

  private struct Entry {
    let pointer: UnsafeMutableRawPointer
    let capacity: Int
  }

  private struct State: @unchecked Sendable {
    // Safety: entries are owned by the pool alone while inside it; the mutex serialises access.
    var entries: [Entry] = []
    var maximumBytes = 0
    var maximumBuffers = 2
    var pooledBytes: Int { entries.reduce(0) { $0 + $1.capacity } }
  }

  private let state = Locked(State())

  init() {}

  /// The most memory kept for reuse, in bytes (0 by default: pooling off; `imgfetch` sets 256 MiB).
  public var maximumBytes: Int {
    get { state.withLock { $0.maximumBytes } }
    set { changeLimits { $0.maximumBytes = Swift.max(0, newValue) } }
  }

  /// The most buffers kept for reuse (2 by default).
  public var maximumBuffers: Int {
    get { state.withLock { $0.maximumBuffers } }
    set { changeLimits { $0.maximumBuffers = Swift.max(0, newValue) } }
  }

  /// Bytes currently held for reuse.
  public var pooledBytes: Int { state.withLock { $0.pooledBytes } }

  /// Gives every pooled buffer back to the system.
  public func removeAll() {
    let released = state.withLock { state in
      defer { state.entries.removeAll() }
      return state.entries.map(\.pointer)
    }
    for pointer in released { pointer.deallocate() }
  }

  /// A buffer of at least `capacity` bytes and its real capacity: a pooled one when one fits,
  /// otherwise a new 64-byte aligned allocation; nil when the system has no memory for it (no pixel
  /// allocation traps).
  func allocateIfAvailable(capacity: Int) -> (pointer: UnsafeMutableRawPointer, capacity: Int)? {
    if capacity >= minimumBytes {
      let reused: Entry? = state.withLock { state in
        let fitting = state.entries.indices.filter { state.entries[$0].capacity >= capacity }
        guard let best = fitting.min(by: { state.entries[$0].capacity < state.entries[$1].capacity }) else {
          return nil
        }
        return state.entries.remove(at: best)
      }
      if let reused { return (reused.pointer, reused.capacity) }
    }
    // posix_memalign, as the Swift runtime's own aligned allocation uses (so `deallocate()` frees
    // it), but reporting failure instead of trapping: an image under the pixel limit can still be
    // too large for the memory the process may use.
    var pointer: UnsafeMutableRawPointer?
    guard posix_memalign(&pointer, 64, Swift.max(capacity, 1)) == 0, let pointer else { return nil }
    return (pointer, capacity)
  }

  /// Takes back a buffer from a released image: keeps it if it is large and there is room
  /// (dropping the oldest kept buffers to make room), else frees it.
  func recycle(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
    guard capacity >= minimumBytes else { return pointer.deallocate() }
    let kept = state.withLock { state in
      guard capacity <= state.maximumBytes, state.maximumBuffers > 0 else { return false }
      state.entries.append(Entry(pointer: pointer, capacity: capacity))
      return true
    }
    if !kept { return pointer.deallocate() }
    for pointer in state.withLock({ PixelBufferPool.trim(&$0) }) { pointer.deallocate() }
  }

  /// Applies a limit change and frees what no longer fits.
  private func changeLimits(_ change: (inout State) -> Void) {
    let released = state.withLock { state in
      change(&state)
      return PixelBufferPool.trim(&state)
    }
    for pointer in released { pointer.deallocate() }
  }

  /// Drops the oldest entries until the limits hold; returns what to free outside the lock.
  private static func trim(_ state: inout State) -> [UnsafeMutableRawPointer] {
    var released: [UnsafeMutableRawPointer] = []
    while !state.entries.isEmpty
      && (state.entries.count > state.maximumBuffers || state.pooledBytes > state.maximumBytes)
    {
      released.append(state.entries.removeFirst().pointer)
    }
    return released
  }
}
