import SystemFiles
import Testing

/// SystemFiles is the one home of the package's system calls on files, descriptors, signals and
/// processes (issue 23): no Swift file of `Sources` outside it calls one of them. A file can reach
/// Glibc's functions only by importing Glibc (or Foundation, which re-exports it; SystemFiles,
/// FoundationEssentials and Dispatch do not), so those are the files read. (The codecs' and the
/// thumbnailer's Glibc imports are for memory and arithmetic: `malloc`, `sin`, `mode_t`.)
@Suite(.timeLimit(.minutes(30))) struct SystemCallHomeTests {
  static let calls = [
    "open", "openat", "close", "read", "pread", "write", "lseek", "ftruncate", "fsync", "fstat", "stat", "lstat",
    "unlink", "rename", "mkdir", "rmdir", "opendir", "readdir", "closedir", "flock", "readlink", "symlink", "getcwd",
    "utimensat", "access", "dup2", "fcntl", "ioctl", "isatty", "pipe", "socketpair", "sigaction", "signal", "kill",
    "execv", "execve", "posix_spawn", "getenv", "setenv", "unsetenv", "sysconf", "clock_gettime", "_exit",
  ]

  @Test func noSwiftFileOutsideSystemFilesCallsGlibcOnFiles() throws {
    let sources = URLlessPath.repository + "/Sources"
    var found: [String] = []
    for file in try swiftFiles(under: sources) where !file.hasPrefix(sources + "/SystemFiles/") {
      let lines = String(decoding: try ReadableFile(path: file).readAll(), as: UTF8.self).split(
        separator: "\n", omittingEmptySubsequences: false)
      let importsGlibc = lines.contains {
        ["import Glibc", "import Foundation"].contains(String($0.drop { $0 == " " }))
      }
      guard importsGlibc else { continue }
      for (number, line) in lines.enumerated() {
        let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        for call in Self.calls where calls(String(code), call) {
          found.append("\(file.dropFirst(sources.count + 1)):\(number + 1): \(call)")
        }
      }
    }
    #expect(found.isEmpty, "\(found)")
  }

  /// Whether `code` calls the free function `name`: `name(` not preceded by a letter, digit, `_` or
  /// `.` (a method or another name), nor by `func ` (a declaration).
  func calls(_ code: String, _ name: String) -> Bool {
    let bytes = Array(code.utf8)
    let needle = Array((name + "(").utf8)
    guard bytes.count >= needle.count else { return false }
    for start in 0...(bytes.count - needle.count) where Array(bytes[start..<start + needle.count]) == needle {
      guard start > 0 else { return true }
      if bytes[..<start].suffix(5).elementsEqual("func ".utf8) { continue }
      let before = bytes[start - 1]
      let isName = (65...90).contains(before) || (97...122).contains(before) || (48...57).contains(before)
      if !isName && before != UInt8(ascii: "_") && before != UInt8(ascii: ".") { return true }
    }
    return false
  }

  func swiftFiles(under directory: String) throws -> [String] {
    var files: [String] = []
    for name in try Directory.names(in: directory) {
      let path = directory + "/" + name
      if FileStatus.of(path)?.kind == .directory {
        files += try swiftFiles(under: path)
      } else if name.hasSuffix(".swift") {
        files.append(path)
      }
    }
    return files
  }
}

/// The repository's root, from this file's path.
enum URLlessPath {
  static let repository: String = {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    return path
  }()
}
