// imgbench: decode throughput of imgfetch beside a C loop over the same libraries, and the in-process
// 256-px thumbnail (benchmarks/README.md).
import BenchBaseline
import Foundation
import ImageCodecs

// As imgfetch does (the library's default is off): decodes one after another reuse large buffers.
PixelBufferPool.shared.maximumBytes = 256 << 20

func runBenchmark(_ options: Options) throws -> RunResult {
  let start = Meter.seconds(CLOCK_MONOTONIC)
  let date = ISO8601DateFormatter().string(from: Date())
  var files: [FileResult] = []
  for path in try options.resolvedFiles() {
    if !options.smoke { FileHandle.standardError.write(Data("imgbench: \(path)\n".utf8)) }
    files.append(
      try FileBenchmark(
        path: path, iterations: options.iterations, warmup: options.warmup, only: options.decodeCases,
        thumbnail: options.timesThumbnail, sides: options.sides
      ).run())
  }
  let totals = Aggregate.totals(files)
  return RunResult(
    date: date, machine: Machine.current(), libraries: String(cString: cbl_library_versions()),
    iterations: options.iterations, warmup: options.warmup, files: files, aggregates: totals,
    thumbnails: ThumbnailTotal.totals(files), targets: Target.check(totals),
    peakRSSMiB: FileBenchmark.mebibytes(Meter.peakResidentBytes()),
    seconds: Meter.seconds(CLOCK_MONOTONIC) - start)
}

do {
  if CommandLine.arguments.count == 4, CommandLine.arguments[1] == PeakMemory.option {
    try PeakMemory.child(side: CommandLine.arguments[2], path: CommandLine.arguments[3])
    exit(0)
  }
  let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
  let run = try runBenchmark(options)
  if options.json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(run), as: UTF8.self))
  } else {
    print(TextReport.render(run))
  }
  exit(run.files.allSatisfy { $0.cases.allSatisfy(\.pixelsMatch) } ? 0 : 1)
} catch {
  FileHandle.standardError.write(Data("imgbench: \(error)\n".utf8))
  exit(2)
}
