import ImageCodecs
import SystemFiles

/// `imgfetch info FILE...`: one JSON object per line per file, from the header only.
enum InfoCommand {
  static let specs: [OptionSpec] = [
    OptionSpec("max-pixels", value: true, help: "largest accepted width x height (default 100000000)")
  ]

  static func run(_ arguments: [String]) throws(UsageError) -> ExitCode {
    let parsed = try parseArguments(arguments, specs: specs)
    guard !parsed.positionals.isEmpty else { throw UsageError("info needs at least one FILE") }
    let limits = try CodecOptions.limits(parsed)
    var exitCode = ExitCode.success
    for file in parsed.positionals {
      do {
        let header = try ImageDecoder.probe(contentsOf: file, limits: limits)
        Console.out(jsonLine(fields(file: file, header: header)))
      } catch {
        Console.error(error.description)
        exitCode = .invalidImage
      }
    }
    return exitCode
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
    fields.append(("bytes", fileSize(file).map { .int($0) } ?? .null))
    return fields
  }

  static func fileSize(_ path: String) -> Int? { FileStatus.of(path)?.size }
}
