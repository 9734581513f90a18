import Foundation

/// Whether the executable at `path` was built with AddressSanitizer (`scripts/sanitize`). Such a
/// build reserves terabytes of shadow address space (no address-space limit can be set for it) and
/// keeps freed memory in a quarantine, so its resident memory is not the product's.
/// - Parameter path: The executable.
/// - Returns: True when it carries the AddressSanitizer runtime.
public func isAddressSanitized(_ path: String) -> Bool {
  guard let data = FileManager.default.contents(atPath: path) else { return false }
  return data.range(of: Data("__asan_init".utf8)) != nil
}

extension Fixtures {
  /// Whether the built `imgfetch` carries AddressSanitizer; see ``isAddressSanitized(_:)``.
  public static let imgfetchIsAddressSanitized: Bool = isAddressSanitized(
    productsDirectory.appendingPathComponent("imgfetch").path)
}

extension Fixtures {
  /// How to run the built `imgfetch` so that an allocation of `largestAllocation` bytes or more
  /// fails: under `prlimit --as=addressSpace` for a plain build; for an AddressSanitizer build, which
  /// cannot run under an address-space limit, with ASan's own cap on one allocation (failing ones
  /// return null) and its report of the refusal written under `logDirectory`, so standard error
  /// holds imgfetch's output alone.
  /// - Parameters:
  ///   - arguments: imgfetch's arguments.
  ///   - addressSpace: The address-space limit of a plain build.
  ///   - largestAllocation: The smallest allocation that must fail in an ASan build.
  ///   - logDirectory: Where an ASan build writes its reports (an existing directory).
  /// - Returns: The executable, its arguments and the extra environment.
  public static func imgfetchUnderMemoryLimit(
    _ arguments: [String], addressSpace: Int, largestAllocation: Int, logDirectory: String
  ) -> (executable: String, arguments: [String], environment: [String: String]) {
    let imgfetch = productsDirectory.appendingPathComponent("imgfetch").path
    var environment = ["SWIFT_BACKTRACE": "enable=no"]
    guard imgfetchIsAddressSanitized else {
      return ("/usr/bin/prlimit", ["--as=\(addressSpace)", "--", imgfetch] + arguments, environment)
    }
    let inherited = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
    environment["ASAN_OPTIONS"] =
      inherited
      + "allocator_may_return_null=1:max_allocation_size_mb=\((largestAllocation >> 20) - 1):log_path=\(logDirectory)/asan"
    return (imgfetch, arguments, environment)
  }
}
