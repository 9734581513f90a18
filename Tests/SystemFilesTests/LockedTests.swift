import Dispatch
import SystemFiles
import Testing

/// `Locked` is what every piece of shared state in imgfetch sits behind. These tests are also in
/// the ThreadSanitizer run (scripts/sanitizers/thread-tests): there, a contended
/// `Synchronization.Mutex` reads as a data race, because its waiters sleep in a futex the sanitizer
/// cannot see; a `Locked` under the same contention must not.
@Suite(.timeLimit(.minutes(30))) struct LockedTests {
  @Test func contendedUpdatesFromManyThreadsAreAllKept() {
    let counts = Locked([Int: Int]())
    let threads = 4
    let updates = 20_000
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
      for step in 0..<updates {
        counts.withLock { $0[step % 7, default: 0] += 1 }
      }
      counts.withLock { $0[-1 - thread] = thread }
    }
    let final = counts.withLock { $0 }
    #expect(final.filter { $0.key >= 0 }.values.reduce(0, +) == threads * updates)
    #expect((0..<threads).allSatisfy { final[-1 - $0] == $0 })
  }

  @Test func returnsAndThrowsWhatTheBodyDoes() {
    struct Refused: Error, Equatable {}
    let value = Locked(41)
    #expect(
      value.withLock {
        $0 += 1
        return $0
      } == 42)
    #expect(throws: Refused()) { try value.withLock { _ throws(Refused) in throw Refused() } }
    #expect(value.withLock { $0 } == 42)
  }
}
