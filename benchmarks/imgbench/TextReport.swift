import Foundation

/// The human-readable form of a run: one line per file and case, then the totals and targets.
enum TextReport {
  static func render(_ run: RunResult) -> String {
    var lines = [
      "imgbench \(run.date)  \(run.machine.cpu), \(run.machine.cores) cores, \(run.machine.kernel)",
      "\(run.libraries); \(run.iterations) timed runs per side after \(run.warmup) warm-up round(s); "
        + "MP/s of source pixels at the median wall time (min-max)",
      "",
      row("file", "case", "imgfetch MP/s", "C MP/s", "ratio", "cpu", "paired", "faults S/C"),
    ]
    for file in run.files {
      for result in file.cases {
        lines.append(
          row(
            file.file, result.name.rawValue + (result.pixelsMatch ? "" : " PIXELS DIFFER"),
            spread(result.swift), spread(result.c), fixed(result.ratio), fixed(result.cpuRatio),
            fixed(result.pairedRatio), "\(result.swift.minorFaults)/\(result.c.minorFaults)"))
      }
      if let thumbnail = file.thumbnail {
        let yardstick = thumbnail.eighthDecodeMs.map { "; C 1/8 decode \(fixed($0, 1)) ms" } ?? ""
        lines.append(
          "  thumbnail \(thumbnail.width)x\(thumbnail.height) in memory: \(fixed(thumbnail.timing.medianMs, 1)) ms "
            + "(\(fixed(thumbnail.timing.minMs, 1))-\(fixed(thumbnail.timing.maxMs, 1)))\(yardstick)")
      }
      let rss = [file.swiftPeakRSSMiB, file.cPeakRSSMiB].map { $0.map { fixed($0, 1) } ?? "?" }
      lines.append(
        "  \(file.width)x\(file.height) \(file.coding) \(file.detail) -> \(file.outputFormat); "
          + "peak RSS of a one-decode process: imgfetch \(rss[0]) MiB, C \(rss[1]) MiB")
    }
    lines += ["", row("group", "case", "imgfetch MP/s", "C MP/s", "ratio", "cpu", "paired", "to ceiling")]
    for total in run.aggregates {
      lines.append(
        row(
          "\(total.group) (\(total.files))", total.name.rawValue,
          fixed(total.swiftMegapixelsPerSecond, 1),
          fixed(total.cMegapixelsPerSecond, 1), fixed(total.ratio), fixed(total.cpuRatio), fixed(total.pairedRatio),
          total.ratioToReusedCeiling.map { fixed($0) } ?? ""))
    }
    lines.append("")
    for total in run.thumbnails {
      lines.append(
        "thumbnail 256 in memory, mean over \(total.files) \(total.group) files: \(fixed(total.meanMs, 1)) ms "
          + "(cpu \(fixed(total.cpuMeanMs, 1)) ms)")
    }
    for target in run.targets {
      lines.append(
        "\(target.met ? "MET   " : "MISSED") \(target.name): \(fixed(target.measured)) "
          + "(cpu \(fixed(target.cpuMeasured))), goal \(fixed(target.goal, 2))")
    }
    lines.append("peak RSS of the run \(fixed(run.peakRSSMiB, 1)) MiB; \(fixed(run.seconds, 1)) s")
    return lines.joined(separator: "\n")
  }

  private static func row(_ columns: String...) -> String {
    let widths = [42, 18, 24, 24, 6, 6, 6, 12]
    return zip(columns, widths).map {
      $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0)
    }
    .joined(separator: " ")
  }

  private static func spread(_ timing: Timing) -> String {
    "\(fixed(timing.megapixelsPerSecond, 1)) (\(fixed(timing.worstMegapixelsPerSecond, 0))-"
      + "\(fixed(timing.bestMegapixelsPerSecond, 0)))"
  }

  static func fixed(_ value: Double, _ digits: Int = 3) -> String {
    String(format: "%.\(digits)f", value)
  }
}
