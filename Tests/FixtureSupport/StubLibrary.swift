import Foundation

extension Fixtures {
  /// Builds a shared library that exports none of a real library's calls, under the real one's file
  /// name, for a child process to find first through `LD_LIBRARY_PATH` (a library imgfetch opens with
  /// `dlopen` that is there but unusable).
  /// - Parameters:
  ///   - name: The file name, e.g. `libcurl.so.4`.
  ///   - directory: Where to build it (a test's scratch directory).
  /// - Returns: The environment that makes a child find it first.
  public static func stubLibrary(named name: String, in directory: URL) throws -> [String: String] {
    let source = directory.appendingPathComponent("stub.c")
    try Data("int not_the_real_library = 1;\n".utf8).write(to: source)
    let library = directory.appendingPathComponent(name).path
    // clang comes with the Swift toolchain.
    let built = try runProcess("/usr/bin/env", ["clang", "-shared", "-fPIC", "-o", library, source.path])
    guard built.status == 0 else { throw StubLibraryError(message: built.stderrText) }
    return ["LD_LIBRARY_PATH": directory.path]
  }
}

/// clang could not build a stub library; `message` is its output.
public struct StubLibraryError: Error, CustomStringConvertible {
  /// clang's standard error.
  public let message: String
  public var description: String { "clang could not build the stub library: \(message)" }
}
