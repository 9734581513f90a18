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
