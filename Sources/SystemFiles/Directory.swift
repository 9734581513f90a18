#if canImport(Glibc)
  import Glibc
#endif

/// Listing and creating directories with plain system calls.
public enum Directory {
  /// The names in a directory, without `.` and `..`, in no particular order.
  /// - Parameter path: The directory.
  /// - Returns: The names.
  /// - Throws: ``SystemError`` with the operation `list`.
  public static func names(in path: String) throws(SystemError) -> [String] {
    guard let stream = opendir(path) else { throw .last("list", path) }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Creates a directory and any missing parents (`mkdir -p`).
  /// - Parameters:
  ///   - path: The directory.
  ///   - permissions: The mode of directories it creates.
  /// - Returns: Whether `path` itself was created (false when it already existed).
  /// - Throws: ``SystemError`` with the operation `create`, or when a component is not a directory.
  @discardableResult
  public static func create(_ path: String, permissions: mode_t = 0o755) throws(SystemError) -> Bool {
    if let status = FileStatus.of(path) {
      guard status.kind == .directory else {
        throw SystemError(operation: "create", path: path, reason: .errno(ENOTDIR))
      }
      return false
    }
    let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
    if let slash = trimmed.lastIndex(of: "/"), slash != trimmed.startIndex {
      try create(String(trimmed[..<slash]), permissions: permissions)
    }
    if mkdir(trimmed, permissions) == 0 { return true }
    if errno == EEXIST, FileStatus.of(trimmed)?.kind == .directory { return false }
    throw .last("create", trimmed)
  }

  /// Flushes a directory's entries to disk (after a rename into it), so the new name survives a
  /// power failure.
  /// - Parameter path: The directory.
  /// - Throws: ``SystemError`` with the operation `sync`.
  public static func sync(_ path: String) throws(SystemError) {
    let descriptor = open(path.isEmpty ? "." : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard descriptor >= 0 else { throw .last("sync", path) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw .last("sync", path) }
  }
}
