import ImageCodecs
import SystemFiles

/// `imgfetch info FILE...`: one JSON object per line per file, from the header only; a folder
/// operand stands for its images (``LocalOperands``).
enum InfoCommand {
  static func run(_ invocation: Invocation) -> ExitCode {
    var kinds: [ItemOutcome.FailureKind] = []
    // A folder operand stands for its images (`-r`: its subfolders' too); one that cannot be listed
    // is a failure of its own.
    let files = LocalOperands(invocation).items
    for item in files {
      if case .unreadable(_, let message) = item {
        Console.error(message)
        kinds.append(.fileSystem)
        continue
      }
      let file = item.label
      do {
        let header = try ImageDecoder.probe(contentsOf: file, limits: invocation.limits.decodeLimits)
        Console.out(jsonLine(fields(file: file, header: header)))
      } catch {
        Console.error(error.description)
        kinds.append(LocalItem.describe(error).kind)
      }
    }
    return ExitCode.of(failures: kinds, items: files.count)
  }

  static func fields(file: String, header: ImageHeader) -> [(String, JSONValue)] {
    var fields: [(String, JSONValue)] = [
      ("file", .string(file)),
      ("format", .string(header.format.rawValue)),
      ("width", .int(header.width)),
      ("height", .int(header.height)),
      ("colorType", .string(header.colorType.rawValue)),
      ("bitDepth", .int(header.bitDepth)),
    ]
    if header.format == .png {
      fields.append(("interlaced", .bool(header.isInterlaced)))
    } else {
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
    fields.append(("sRGB", .bool(color.isSRGB)))
    fields.append(("profileIgnored", color.ignoredProfile.map { .string($0) } ?? .null))
    fields.append(("bytes", fileSize(file).map { .int($0) } ?? .null))
    return fields
  }

  static func fileSize(_ path: String) -> Int? { FileStatus.of(path)?.size }
}
