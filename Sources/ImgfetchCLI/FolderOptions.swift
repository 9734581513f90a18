/// `-r`/`--recursive` and `--output-dir`: how folder operands are walked and where thumbnails go.
/// `--recursive` goes with the commands that walk folders (the default command, `info`, `verify`);
/// `--output-dir` is a thumbnail option (``OptionGroup/thumbnail``) and means nothing without
/// `--thumbnail`.
public struct FolderOptions: OptionValues {
  /// Walk the subfolders of a folder operand too (only its top level otherwise).
  public var recursive = false
  /// `--output-dir` as given: thumbnails go under it instead of next to their originals.
  public var outputDirectory: String?

  /// Reads the options.
  public init(_ parsed: ParsedArguments) throws(UsageError) {
    recursive = parsed.has("recursive")
    outputDirectory = parsed.value("output-dir")
    if outputDirectory?.isEmpty == true { throw UsageError("--output-dir needs a folder (got an empty path)") }
  }
}
