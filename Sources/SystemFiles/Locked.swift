#if canImport(Glibc)
  import Glibc
#endif

/// A value that threads share, reached only while a POSIX mutex is held.
///
/// imgfetch uses this rather than `Synchronization.Mutex`: on Linux that mutex waits in the kernel
/// (a priority-inheriting futex) when it is contended, and ThreadSanitizer cannot see that hand-over,
/// so every contended lock in a sanitized build reads as a data race on the value it guards.
/// `pthread_mutex_lock` is a call ThreadSanitizer knows, so its reports stay about real races.
///
/// ```swift
/// let counts = Locked([String: Int]())
/// counts.withLock { $0["png", default: 0] += 1 }
/// ```
public final class Locked<Value: ~Copyable>: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
  nonisolated(unsafe) private var value: Value

  /// A lock around `initialValue`.
  /// - Parameter initialValue: The value, which from now on is reached only through ``withLock(_:)``.
  public init(_ initialValue: consuming sending Value) {
    value = initialValue
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with the value while holding the lock; other threads wait until it returns.
  /// - Parameter body: Reads or changes the value. It must not call `withLock` on the same lock.
  /// - Returns: What `body` returns.
  /// - Throws: What `body` throws.
  public func withLock<Result, Failure: Error>(
    _ body: (inout sending Value) throws(Failure) -> sending Result
  ) throws(Failure) -> sending Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
