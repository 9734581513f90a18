import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Reads `/proc` files of other processes, which may exit while they are read: plain `open`, `read`,
/// `readlink` and `opendir` through Glibc, each failure (ENOENT, ESRCH, EACCES, a short read) meaning
/// "nothing there". Foundation's readers are not used on `/proc`: `String(contentsOfFile:)` and
/// `Data(contentsOf:)` leaked their read buffer when the process exited mid-read (LeakSanitizer saw it
/// in a clean-clone CI run), and `FileHandle.readDataToEndOfFile` traps on a read error.
/// (`TestHygieneTests` checks that tests read `/proc` only through here.)
public enum ProcFiles {
  /// A file's text, or nil when it cannot be read to its end.
  /// - Parameter path: The file, such as `/proc/123/fdinfo/4`.
  /// - Returns: Its contents as UTF-8 text (an empty file gives "").
  public static func text(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count == 0 { return String(decoding: bytes, as: UTF8.self) }
      if count < 0 {
        if errno == EINTR { continue }
        return nil
      }
      bytes += buffer[..<count]
    }
  }

  /// Where a symbolic link points, or nil.
  /// - Parameter path: The link, such as `/proc/123/fd/4` or `/proc/123/exe`.
  /// - Returns: Its target (`pipe:[1234]`, a path…).
  public static func link(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4097)
    let count = readlink(path, &buffer, 4096)
    guard count >= 0 else { return nil }
    return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The names in a directory (without `.` and `..`), or none when it cannot be listed.
  /// - Parameter path: The directory, such as `/proc/123/fd`.
  /// - Returns: The names, in the order the kernel gives them.
  public static func names(in path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// The descriptors of a process that are not close-on-exec, with what each points at, from
  /// `/proc/PID/fdinfo` (its `flags:` line is octal; `O_CLOEXEC` is 02000000).
  /// - Parameter pid: The process.
  /// - Returns: Descriptor number → link target (`?` when the link is gone).
  public static func inheritableDescriptors(of pid: pid_t) -> [Int32: String] {
    var found: [Int32: String] = [:]
    for name in names(in: "/proc/\(pid)/fdinfo") {
      guard let number = Int32(name), let text = text("/proc/\(pid)/fdinfo/\(name)"),
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
        let flags = Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8),
        flags & 0o2_000_000 == 0
      else { continue }
      found[number] = link("/proc/\(pid)/fd/\(name)") ?? "?"
    }
    return found
  }
}
