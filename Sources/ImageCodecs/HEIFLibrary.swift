internal import CImageCodecs

extension ImageDecoder {
  /// The version of the libheif that decodes HEIC and AVIF files (such as `"1.15.1"`), loading it
  /// if no HEIF file was decoded yet; nil when none can be loaded (a HEIF decode then says why).
  ///
  /// libheif is opened on first use, `libheif.so.1` as the dynamic loader finds it, or the file the
  /// `IMGFETCH_LIBHEIF` environment variable names (a newer build, say: Debian 12's 1.15.1 is the
  /// oldest imgfetch supports). Its own messages, which some refusals carry, differ between
  /// versions, as do the last bits of some pictures' colour conversion.
  public static var heifLibraryVersion: String? {
    var text = [CChar](repeating: 0, count: 256)
    guard imc_heif_library_version(&text, text.count) == 1 else { return nil }
    return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
