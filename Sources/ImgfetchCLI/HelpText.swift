import Thumbnails

/// The text of `imgfetch --help`, laid out from the option table so that every option is listed
/// once, in its group, in one column width.
enum HelpText {
  /// The commands, each with one line.
  static let commands: [(String, String)] = [
    ("imgfetch [options] SOURCE...", "make sure each SOURCE is a valid image and print its path"),
    ("imgfetch --class C --column COL [options]", "the same for every object of a Parse class"),
    ("imgfetch info FILE...", "one JSON object per file, from the header only"),
    ("imgfetch decode FILE [-o PATH|-]", "raw pixels, row-major, top-left origin, no header"),
    ("imgfetch verify FILE...", "full strict decode of each file: FILE: OK, or the reason on stderr"),
    ("imgfetch cache stats|clear|gc", "look after the cache directory"),
  ]

  /// The examples, each a command line the commands accept as written (the tests run each one)
  /// and what it does.
  static let examples: [(String, String)] = [
    ("imgfetch photo.jpg", "validate a local file (a full strict decode)"),
    ("imgfetch ~/Pictures -r --thumbnail 256 --output-dir ~/thumbs", "a folder's thumbnails, in a tree of their own"),
    ("imgfetch photo.jpg --thumbnail 64,256,1024 -o tn_%s-%d.webp", "three WebP sizes from one decode"),
    ("imgfetch photo.png --thumbnail 320x200 --fit cover --format jpeg --background black", "a cropped JPEG"),
    ("imgfetch --class Photo --column image --thumbnail 256 --jobs 4", "every object of a class"),
    (
      "imgfetch --class Photo --column image --thumbnail 64,256 --thumbnails-only",
      "thumbnails of a class, no original kept; a second run downloads nothing"
    ),
    ("imgfetch https://example.com/cat.jpg --thumbnail 256x256 --fit cover --crop attention", "the busiest square"),
    ("imgfetch Photo/Ed1nuqPvcm --column image --json", "one Parse object, as JSON"),
    ("imgfetch https://example.com/cat.jpg --thumbnail 256x --progressive", "a URL, 256 wide"),
    ("imgfetch ~/Pictures --thumbnail 256 --dry-run", "what would be written, writing nothing"),
    ("imgfetch info photo.jpg", "the header as JSON"),
    ("imgfetch decode photo.jpg -o pixels.raw --pixel-format rgba8 --orient", "raw pixels"),
    ("imgfetch cache gc --max-size 5G --dry-run", "what eviction down to 5 GB would remove"),
  ]

  /// The exit codes.
  static let exitCodes: [(String, String)] = [
    ("0", "everything done"),
    ("1", "usage error"),
    ("2", "a batch finished but some items failed (\"N of M items failed\")"),
    ("3", "network or server error"),
    (
      "4",
      "invalid image or data (corrupt, truncated, unsupported, over a limit; a column with no file, an object that does not exist)"
    ),
    ("5", "a local file or directory cannot be read or written (path and reason)"),
    ("130", "interrupted"),
  ]

  /// Rows as two columns, the left one as wide as its widest entry.
  static func table(_ rows: [(String, String)]) -> [String] {
    let width = rows.map(\.0.count).max() ?? 0
    return rows.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
  }

  static var text: String {
    let example = ThumbnailNaming.path(forSource: "photo.jpg", size: .longestSide(256), fit: .inside, format: .jpeg)
    let cover = ThumbnailNaming.path(
      forSource: "photo.jpg", size: .box(width: 320, height: 200), fit: .cover, format: .jpeg)
    var lines = ["imgfetch: fetch, validate, decode and thumbnail PNG, JPEG, WebP, GIF, HEIC and AVIF images", "", "Usage:"]
    lines += table(commands)
    lines += [
      "",
      "A SOURCE is an http(s) URL, Class/objectId (with --column), or a local file (validated where it",
      "is). Each finished item prints a line: the valid file (the cached copy, or the local file), and",
      "with --thumbnail a tab and the thumbnail's path (each size's); a class walk's lines start with",
      "the objectId and a tab. --json prints one object per item instead:",
      "source, objectId (Parse), cachePath (downloads, unless --thumbnails-only) and cacheHit, the",
      "original's width, height, format, bytes, and with --thumbnail thumbnailPath, thumbnailWidth,",
      "thumbnailHeight, reused",
      "(with several sizes also thumbnails: path, width, height, reused of each; the plain line lists each);",
      "error for a failed item, skipped for a skipped one. Secrets are never printed. width and",
      "height are the size as seen (after the EXIF orientation), storedWidth and storedHeight as stored.",
      "Every command: results on stdout, reasons on stderr; info, verify and decode -o PATH take --json",
      "(failed inputs too); info and verify take --quiet; several inputs end with \"N of M items failed\".",
      "Thumbnails go next to the original: \(example), \(cover) with --fit cover;",
      "-o tn_%s.jpg names them instead (%s: the name without extension, %d: the size).",
      "An up-to-date one is reused. imgfetch's own thumbnails met as sources (a glob, a folder) are",
      "skipped without a line (--json: a skipped object) and counted once, at the end, on stderr.",
      "",
      "A folder SOURCE (and a folder FILE of info and verify) stands for its PNG, JPEG, WebP, GIF,",
      "HEIC and AVIF files (by extension or content), in sorted order; -r walks its subfolders too.",
      "Hidden names are left out, and symbolic links to folders inside it not followed. --output-dir",
      "DIR puts thumbnails under DIR, mirroring the folders below the operands' common folder (one",
      "folder operand's own files land directly under DIR); downloads are mirrored from the cache",
      "directory.",
    ]
    let rows = OptionGroup.allCases.map { group in (group, group.specs.map { ($0.synopsis, $0.help) }) }
    let width = rows.flatMap { $0.1.map(\.0.count) }.max() ?? 0
    let general = ("General", OptionGroup.generalSpecs.map { ($0.synopsis, $0.help) })
    for (title, options) in rows.map({ ($0.0.title, $0.1) }) + [general] {
      lines += ["", title + ":"]
      lines += options.map { "  " + $0.0 + String(repeating: " ", count: width - $0.0.count + 2) + $0.1 }
    }
    lines += ["", "Examples:"] + examples.flatMap { ["  " + $0.0, "      " + $0.1] }
    lines += ["", "Exit codes:"] + table(exitCodes)
    return lines.joined(separator: "\n")
  }
}
