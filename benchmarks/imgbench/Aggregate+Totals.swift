extension Aggregate {
  /// Totals for every group that has files: all JPEGs, baseline and progressive JPEGs, all PNGs,
  /// and every file together. A group's throughput is its total megapixels over the sum of its
  /// files' median times, so large files weigh as much as the time they take.
  static func totals(_ files: [FileResult]) -> [Aggregate] {
    let groups: [(String, (FileResult) -> Bool)] = [
      ("all", { _ in true }),
      ("jpeg", { $0.format == "jpeg" }),
      ("jpeg-baseline", { $0.format == "jpeg" && $0.coding == "baseline" }),
      ("jpeg-progressive", { $0.format == "jpeg" && $0.coding == "progressive" }),
      ("png", { $0.format == "png" }),
    ]
    var totals: [Aggregate] = []
    for (group, member) in groups {
      let chosen = files.filter(member)
      for kase in DecodeCase.allCases {
        guard var total = sum(group: group, kase: kase, chosen) else { continue }
        if kase == .fullFresh, let ceiling = sum(group: group, kase: .fullReused, chosen) {
          total.ratioToReusedCeiling = Timing.ratio(
            total.swiftMegapixelsPerSecond, ceiling.cMegapixelsPerSecond)
        }
        totals.append(total)
      }
    }
    return totals
  }

  /// The total for `files`, or `nil` when there are none or one of them lacks the case.
  private static func sum(group: String, kase: DecodeCase, _ files: [FileResult]) -> Aggregate? {
    let rows = files.compactMap { file in file.cases.first { $0.name == kase }.map { (file, $0) } }
    return rows.isEmpty || rows.count != files.count
      ? nil : sum(group: group, kase: kase, rows: rows)
  }

  private static func sum(group: String, kase: DecodeCase, rows: [(FileResult, CaseResult)])
    -> Aggregate
  {
    let megapixels = rows.reduce(0) { $0 + $1.0.megapixels }
    func rate(_ ms: (CaseResult) -> Double) -> Double {
      Timing.rate(megapixels, ms: rows.reduce(0) { $0 + ms($1.1) })
    }
    let swift = rate { $0.swift.medianMs }
    let c = rate { $0.c.medianMs }
    let swiftCPU = rate { $0.swift.cpuMedianMs }
    let cCPU = rate { $0.c.cpuMedianMs }
    let rounds = rows.map { min($0.1.swift.wallMs.count, $0.1.c.wallMs.count) }.min() ?? 0
    let paired = (0..<rounds).map { round in
      Timing.ratio(rows.reduce(0) { $0 + $1.1.c.wallMs[round] }, rows.reduce(0) { $0 + $1.1.swift.wallMs[round] })
    }
    return Aggregate(
      group: group, name: kase, files: rows.count, megapixels: megapixels, swiftMegapixelsPerSecond: swift,
      cMegapixelsPerSecond: c, ratio: Timing.ratio(swift, c), swiftCPUMegapixelsPerSecond: swiftCPU,
      cCPUMegapixelsPerSecond: cCPU, cpuRatio: Timing.ratio(swiftCPU, cCPU),
      pairedRatio: Timing.median(paired.sorted()),
      ratioToReusedCeiling: nil)
  }
}

extension Target {
  /// The targets of the benchmark issue that the aggregates can show: JPEG into a reused Image at
  /// least 0.95x of the C ceiling, into a fresh Image at least 0.90x of the (reused) C ceiling, PNG
  /// (reused, as for JPEG) at least 1.0x.
  static func check(_ totals: [Aggregate]) -> [Target] {
    func find(_ group: String, _ kase: DecodeCase) -> Aggregate? {
      totals.first { $0.group == group && $0.name == kase }
    }
    var targets: [Target] = []
    if let reused = find("jpeg", .fullReused) {
      targets.append(Target(name: "JPEG full decode, reused Image / C reused", goal: 0.95, reused))
    }
    if let fresh = find("jpeg", .fullFresh), let reused = find("jpeg", .fullReused) {
      let wall = Timing.ratio(fresh.swiftMegapixelsPerSecond, reused.cMegapixelsPerSecond)
      let cpu = Timing.ratio(fresh.swiftCPUMegapixelsPerSecond, reused.cCPUMegapixelsPerSecond)
      targets.append(
        Target(
          name: "JPEG full decode, fresh Image / C reused", goal: 0.90, measured: wall,
          cpuMeasured: cpu, met: wall >= 0.90))
    }
    if let png = find("png", .fullReused) {
      targets.append(Target(name: "PNG full decode, reused Image / C reused", goal: 1.0, png))
    }
    return targets
  }

  init(name: String, goal: Double, _ total: Aggregate) {
    self.init(
      name: name, goal: goal, measured: total.ratio, cpuMeasured: total.cpuRatio,
      met: total.ratio >= goal)
  }
}

extension ThumbnailTotal {
  /// The mean thumbnail time over the JPEGs and over the PNGs that have one.
  static func totals(_ files: [FileResult]) -> [ThumbnailTotal] {
    ["jpeg", "png"].compactMap { group in
      let timings = files.filter { $0.format == group }.compactMap { $0.thumbnail?.timing }
      guard !timings.isEmpty else { return nil }
      let count = Double(timings.count)
      return ThumbnailTotal(
        group: group, files: timings.count, meanMs: timings.reduce(0) { $0 + $1.medianMs } / count,
        cpuMeanMs: timings.reduce(0) { $0 + $1.cpuMedianMs } / count)
    }
  }
}
