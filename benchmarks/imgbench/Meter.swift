import Glibc

/// The clocks and kernel counters one timed call is measured with.
///
/// Wall time is what a user waits; thread CPU time (`CLOCK_THREAD_CPUTIME_ID`) is what the decode
/// itself cost, and stays honest when other processes share the cores. Minor page faults show what
/// a fresh allocation costs: every new page is faulted in and zeroed by the kernel.
struct Meter {
  /// One timed call.
  struct Sample {
    /// Wall-clock seconds.
    var wall: Double
    /// CPU seconds of the calling thread.
    var cpu: Double
    /// Minor page faults taken by the calling thread.
    var minorFaults: Int
  }

  /// Runs `body` once and measures it.
  static func measure(_ body: () throws -> Void) rethrows -> Sample {
    let faults0 = minorFaults()
    let cpu0 = seconds(CLOCK_THREAD_CPUTIME_ID)
    let wall0 = seconds(CLOCK_MONOTONIC)
    try body()
    let wall1 = seconds(CLOCK_MONOTONIC)
    let cpu1 = seconds(CLOCK_THREAD_CPUTIME_ID)
    return Sample(wall: wall1 - wall0, cpu: cpu1 - cpu0, minorFaults: minorFaults() - faults0)
  }

  static func seconds(_ clock: clockid_t) -> Double {
    var now = timespec()
    clock_gettime(clock, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
  }

  /// Linux's RUSAGE_THREAD, which Glibc's module hides behind _GNU_SOURCE.
  static let rusageThread: __rusage_who_t = 1

  static func minorFaults() -> Int {
    var usage = rusage()
    getrusage(rusageThread, &usage)
    return usage.ru_minflt
  }

  /// The process's peak resident set size in bytes (`ru_maxrss`).
  static func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_maxrss * 1024
  }

  /// A small text file's contents (for /proc and /sys files).
  static func readText(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var text = ""
    var buffer = [CChar](repeating: 0, count: 4096)
    while fgets(&buffer, Int32(buffer.count), file) != nil {
      text += String(
        decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    return text
  }
}
