import ImageCodecs
import SystemFiles

/// `imgfetch info FILE...`: one JSON object per line per file, from the header only; a file that
/// cannot be read as an image gets a `{"source":…,"error":…}` object and its reason on standard
/// error (``FileReport``). `--quiet` prints only the errors. A folder operand stands for its
/// images.
enum InfoCommand {
  static func run(_ invocation: Invocation) -> ExitCode {
    // info's results are JSON: --json changes nothing, and keeps them under --quiet as everywhere.
    let output = invocation.output
    var report = FileReport(json: output.json || !output.quiet, quiet: output.quiet)
    // A folder operand stands for its images (`-r`: its subfolders' too, ``LocalOperands``); one
    // that cannot be listed is a failure of its own.
    for item in LocalOperands(invocation).items {
      if case .unreadable(let folder, let message) = item {
        report.failed(folder, kind: .fileSystem, message: message)
        continue
      }
      let file = item.label
      let limits = invocation.limits.decodeLimits
      do {
        let header = try ImageDecoder.probe(contentsOf: file, limits: limits)
        report.succeeded(line: "", fields: fields(file: file, header: header))
      } catch {
        // Over the pixel limit: described from its header all the same (still only the header is
        // read), with the limit's reason; info succeeded in describing it (exit 0).
        if error.kind == .limitExceeded, let header = overLimitHeader(file, limits: limits) {
          let pixels = header.width * header.height
          let reason =
            "image is \(header.width)x\(header.height) (\(pixels) pixels), over the \(limits.maxPixels)-pixel limit"
          report.succeeded(line: "", fields: fields(file: file, header: header) + [("overLimit", .string(reason))])
          continue
        }
        let (kind, message) = LocalItem.describe(error)
        report.failed(file, kind: kind, message: message)
      }
    }
    return report.finish()
  }

  /// The header of a file refused for its pixel count alone: probed again without the pixel
  /// limit (a header read; nothing is decoded), `nil` when it fails for another reason too or is
  /// within the limit (another limit refused it).
  static func overLimitHeader(_ file: String, limits: DecodeLimits) -> ImageHeader? {
    var open = limits
    open.maxPixels = 1 << 46
    guard let header = try? ImageDecoder.probe(contentsOf: file, limits: open),
      header.width * header.height > limits.maxPixels
    else { return nil }
    return header
  }

  /// The object of one file: `source` (and `file`, its older name), the size as a person sees it
  /// (`width`, `height`, after the EXIF orientation) and as stored (`storedWidth`, `storedHeight`),
  /// then what the header says.
  static func fields(file: String, header: ImageHeader) -> [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [
      ("source", .string(file)),
      ("file", .string(file)),
      ("format", .string(header.format.rawValue)),
      ("width", .int(header.orientedWidth)),
      ("height", .int(header.orientedHeight)),
      ("storedWidth", .int(header.width)),
      ("storedHeight", .int(header.height)),
      ("colorType", .string(header.colorType.rawValue)),
      ("bitDepth", .int(header.bitDepth)),
    ]
    switch header.format {
    case .png:
      fields.append(("interlaced", .bool(header.isInterlaced)))
    case .gif:
      fields.append(("interlaced", .bool(header.isInterlaced)))
      fields.append(("frames", .int(header.frameCount)))
    case .webp:
      fields.append(("lossless", .bool(header.isLossless)))
      fields.append(("frames", .int(header.frameCount)))
      fields.append(("chromaSubsampling", header.chromaSubsampling.map { .string($0) } ?? .null))
    case .heic, .avif:
      fields.append(("frames", .int(header.frameCount)))
    case .jpeg:
      fields.append(("progressive", .bool(header.isProgressive)))
      fields.append(("arithmetic", .bool(header.isArithmeticCoded)))
      fields.append(("chromaSubsampling", header.chromaSubsampling.map { .string($0) } ?? .null))
    }
    fields.append(("orientation", .int(header.orientation.rawValue)))
    fields.append(("hasAlpha", .bool(header.hasAlpha)))
    fields.append(("iccProfile", .bool(header.hasICCProfile)))
    let color = header.colorSpace
    fields.append(("colorModel", .string(color.model.rawValue)))
    fields.append(("colorSource", .string(color.origin.rawValue)))
    fields.append(("colorProfile", color.profileDescription.map { .string($0) } ?? .null))
    if let codes = color.codePoints { fields.append(("nclx", .string(codes.description))) }
    fields.append(("sRGB", .bool(color.isSRGB)))
    fields.append(("profileIgnored", color.ignoredProfile.map { .string($0) } ?? .null))
    fields.append(("bytes", fileSize(file).map { .int($0) } ?? .null))
    return fields
  }

  static func fileSize(_ path: String) -> Int? { FileStatus.of(path)?.size }
}
