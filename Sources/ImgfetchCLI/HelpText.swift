/// The text of `imgfetch --help`.
enum HelpText {
  static let text =
    """
    imgfetch: fetch, validate, decode and thumbnail PNG and JPEG images

    Usage:
      imgfetch [options] SOURCE...  fetch, validate and cache each SOURCE: an http(s) URL,
                                   Class/objectId (with --column), or a local file (validated in
                                   place); print the cached path (and, with --thumbnail, a tab and
                                   the thumbnail's path)
      imgfetch --class C --column COL [--where JSON] [--shard K/N [--shard-mode hash]] [options]
                                   the same for every object of a Parse class (matching --where)
      imgfetch cache stats|clear|gc [--cache-dir DIR] [--max-age S]
    \(ThumbnailCommand.usage)
      imgfetch info FILE...        one JSON object per file, from the header only
      imgfetch decode FILE [-o PATH|-] [--pixel-format F] [--orient] [--lenient]
                                   raw pixels, row-major, top-left origin, no header
      imgfetch verify FILE...      full strict decode of each file: OK or the reason

    Fetch options:
    \(FetchSettings.specs.filter { !["thumbnail", "fit", "format", "quality", "filter", "upscale", "no-rotate"].contains($0.name) }.map { spec in
      let name = "--\(spec.name)" + (spec.takesValue ? " V" : "")
      return "  " + name + String(repeating: " ", count: max(1, 19 - name.count)) + spec.help
    }.joined(separator: "\n"))
      --json lines: source, objectId (Parse), cachePath, thumbnailPath, thumbnailWidth,
      thumbnailHeight, reused (with --thumbnail), width, height, format, bytes, cacheHit;
      or source and error. Secrets given by option or environment are never printed.

    Decode options:
      --pixel-format F   auto (default: rgba8 for PNG, rgb8 or gray8 for JPEG),
                         source, native (16-bit kept), rgba8, rgb8, gray8
      --orient           apply the EXIF orientation
      -o, --output PATH  write to PATH atomically, or - for standard output (the default
                         when it is not a terminal); PATH may not be the input file
      --lenient          return what decodes from a damaged file instead of failing
      --max-pixels N     largest accepted width x height (default 100000000)

    Exit codes:
      0    everything done
      1    usage error
      2    a batch finished but some items failed
      3    network or server error
      4    invalid image (corrupt, truncated, unsupported, too large, unreadable)
      130  interrupted

    imgfetch --thumbnail --help lists the thumbnail options and the file naming rule.
    """
}
