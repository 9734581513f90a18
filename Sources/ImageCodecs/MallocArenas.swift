internal import CImageCodecs

/// glibc's per-thread malloc arenas, which an executable (not a library) may cap.
///
/// Each thread that allocates gets its own arena, reserving 64 MiB of address space; a process with
/// transfer, decode and dispatch threads reserves gigabytes it never touches, enough to exhaust an
/// address-space limit (`ulimit -v`, `prlimit --as`) and make `malloc` fail deep inside a library.
public enum MallocArenas {
  /// Caps the number of arenas for the whole process. Call first thing in `main`.
  /// - Parameter count: The most arenas glibc may create (2 is plenty for imgfetch).
  /// - Returns: Whether glibc accepted the setting.
  @discardableResult
  public static func limit(to count: Int) -> Bool { imc_limit_malloc_arenas(Int32(clamping: count)) == 0 }
}
