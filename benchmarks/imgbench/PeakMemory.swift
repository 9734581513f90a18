import Foundation
import ImageCodecs

/// Peak RSS of a whole process that decodes one file once into a new buffer, per side.
///
/// Measured in a child process (this executable run with `--peak-rss SIDE FILE`): inside the
/// benchmark process the allocator keeps memory freed by earlier decodes, which would hide part
/// of a decode's cost from `ru_maxrss`. The figure includes the runtime and the file's bytes, as
/// `/usr/bin/time -f %M` would.
enum PeakMemory {
  /// The hidden option that makes imgbench a measuring child.
  static let option = "--peak-rss"

  /// Runs the child for `side` on `path`.
  /// - Returns: Its peak RSS in MiB, or `nil` when the child failed.
  static func measure(_ side: Side, path: String) -> Double? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = [option, side.rawValue, path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0,
      let bytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    else { return nil }
    return FileBenchmark.mebibytes(bytes)
  }

  /// The child's work: one fresh full decode of `path` on `side`, then its peak RSS in bytes on stdout.
  static func child(side name: String, path: String) throws {
    guard let side = Side(rawValue: name) else { throw BenchError("\(option) needs swift or c") }
    guard let data = FileManager.default.contents(atPath: path) else {
      throw BenchError("cannot read \(path)")
    }
    let bytes = [UInt8](data)
    let pair = try DecoderPair(bytes: bytes, header: try ImageDecoder.probe(bytes))
    try pair.decode(side, .fullFresh)
    // VmHWM, not ru_maxrss: after posix_spawn the kernel folds the parent's peak into ru_maxrss.
    let status = Meter.readText("/proc/self/status") ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kibibytes = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).dropLast(3))
    else { throw BenchError("no VmHWM in /proc/self/status") }
    print(kibibytes * 1024)
  }
}
