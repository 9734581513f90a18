/// The one place imgfetch's version is defined: `imgfetch --version` prints it and every HTTP
/// request (Parse REST and file downloads) carries it in its `User-Agent`.
public enum ImgfetchVersion {
  /// The version, such as `0.1.0`.
  public static let number = "0.1.0"

  /// The `User-Agent` of every request: `imgfetch/0.1.0`.
  public static var userAgent: String { "imgfetch/\(number)" }
}
