import Foundation
import Glibc

extension Machine {
  /// This machine: CPU model from /proc/cpuinfo, online cores, kernel release and memory.
  static func current() -> Machine {
    let cpuinfo = Meter.readText("/proc/cpuinfo") ?? ""
    let model =
      cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
      .flatMap { $0.split(separator: ":", maxSplits: 1).last }
      .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
    var names = utsname()
    uname(&names)
    let release = withUnsafeBytes(of: names.release) {
      String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
    }
    return Machine(
      cpu: model, cores: ProcessInfo.processInfo.activeProcessorCount, kernel: "Linux \(release)",
      memoryGiB: (Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824 * 10).rounded()
        / 10)
  }
}
